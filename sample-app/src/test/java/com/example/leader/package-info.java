/**
 * The examples of {@code docs/leader-election.md}. Documentation snippets:
 * {@code DocumentationSnippetsTests} checks that the Markdown shows this code as it is
 * here.
 */
@NullMarked
package com.example.leader;

import org.jspecify.annotations.NullMarked;
