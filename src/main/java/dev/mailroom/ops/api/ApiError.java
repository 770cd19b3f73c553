package dev.mailroom.ops.api;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The one error shape of the API: a machine-readable {@code error} and a sentence for people. */
public record ApiError(int status, String error, String reason) {

    public static Response response(Response.Status status, String error, String reason) {
        return response(status.getStatusCode(), error, reason);
    }

    public static Response response(int status, String error, String reason) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ApiError(status, error, reason))
                .build();
    }
}
