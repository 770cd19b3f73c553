/**
 * Who may do what: the API (except health and webhooks) and the console require a user of the
 * server's security realm (HTTP Basic or the console's session); {@code mailroom-viewer} reads,
 * {@code mailroom-operator} reads and acts; write requests are protected against cross-site request
 * forgery. {@link dev.mailroom.ops.security.AccessRules} is the pure decision,
 * {@link dev.mailroom.ops.security.AccessFilter} applies it to every request, and
 * {@link dev.mailroom.ops.security.OpenApiAccess} writes it into the API's OpenAPI description.
 */
package dev.mailroom.ops.security;
