/**
 * The README's {@code LockTemplate} example, and a test of it without Redis.
 * Documentation snippets: {@code DocumentationSnippetsTests} checks that the Markdown
 * shows this code as it is here.
 */
@NullMarked
package com.example.template;

import org.jspecify.annotations.NullMarked;
