/**
 * Which provider instances exist and which one a send uses: built from MicroProfile Config, the one
 * place that knows every provider adapter ({@code smtp}, {@code http}, {@code sandbox}).
 */
package dev.mailroom.provider.registry;
