/**
 * The README's reactive examples: the reactive template and an annotated {@code Mono}
 * method. Documentation snippets: {@code DocumentationSnippetsTests} checks that the
 * Markdown shows this code as it is here.
 */
@NullMarked
package com.example.reactive;

import org.jspecify.annotations.NullMarked;
