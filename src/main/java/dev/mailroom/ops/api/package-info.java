/**
 * The REST API ({@code /api/v1}): JAX-RS resources that translate HTTP to calls of the capabilities and
 * their domain exceptions to the one JSON error shape ({@link dev.mailroom.ops.api.ApiError}).
 */
package dev.mailroom.ops.api;
