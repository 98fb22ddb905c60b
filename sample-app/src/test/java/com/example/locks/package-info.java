/**
 * The examples of the lock kinds' pages under {@code docs/locks}. Documentation snippets:
 * {@code DocumentationSnippetsTests} checks that the Markdown shows this code as it is
 * here.
 */
@NullMarked
package com.example.locks;

import org.jspecify.annotations.NullMarked;
