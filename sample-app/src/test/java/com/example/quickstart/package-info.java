/**
 * The README's quick start, as a user's application would hold it. Documentation
 * snippets: {@code DocumentationSnippetsTests} checks that the Markdown shows this code
 * as it is here.
 */
@NullMarked
package com.example.quickstart;

import org.jspecify.annotations.NullMarked;
