package dev.mailroom.ops.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Every failure of the API answers JSON with a reason; a stack trace goes to the log, never to the client. */
public final class ErrorMappers {

    private ErrorMappers() {
    }

    /** 4xx/5xx the resources or JAX-RS raised on purpose (404 unknown path, 405, 415, ...). */
    @Provider
    public static class WebApplication implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response r = e.getResponse();
            String reason = e.getMessage() == null ? r.getStatusInfo().getReasonPhrase() : e.getMessage();
            return ApiError.response(r.getStatus(), r.getStatusInfo().getReasonPhrase()
                    .toLowerCase().replace(' ', '_'), reason);
        }
    }

    /** An operator request the core refused (bad input, unknown id, wrong state): its 4xx and reason. */
    @Provider
    public static class RefusedRequest implements ExceptionMapper<dev.mailroom.platform.Refused> {
        @Override
        public Response toResponse(dev.mailroom.platform.Refused e) {
            Response.Status status = e instanceof dev.mailroom.platform.Refused.NotFound ? Response.Status.NOT_FOUND
                    : e instanceof dev.mailroom.platform.Refused.Invalid ? Response.Status.BAD_REQUEST
                    : Response.Status.CONFLICT;
            return ApiError.response(status, e.reason(), e.getMessage());
        }
    }

    /**
     * A request parameter Bean Validation refused ({@link Limit}, {@code @Size}, {@code @Pattern} on a resource's
     * parameters): a 400. A constraint's message is {@code "<error>: <reason>"}; the first violation (in a stable
     * order) names the error, the reason lists them all.
     */
    @Provider
    public static class InvalidParameter implements ExceptionMapper<jakarta.validation.ConstraintViolationException> {
        @Override
        public Response toResponse(jakarta.validation.ConstraintViolationException e) {
            java.util.List<String> messages = e.getConstraintViolations() == null ? java.util.List.of()
                    : e.getConstraintViolations().stream().map(v -> v.getMessage()).distinct().sorted().toList();
            String first = messages.isEmpty() ? "invalid_parameter: a request parameter is not valid" : messages.get(0);
            int colon = first.indexOf(": ");
            String error = colon > 0 && first.substring(0, colon).matches("[a-z_]+") ? first.substring(0, colon)
                    : "invalid_parameter";
            String reason = messages.isEmpty() ? first.substring(colon + 2) : String.join("; ", messages.stream()
                    .map(m -> m.matches("[a-z_]+: .*") ? m.substring(m.indexOf(": ") + 2) : m).toList());
            return ApiError.response(Response.Status.BAD_REQUEST, error, reason);
        }
    }

    /** A body that is not the JSON the endpoint takes (syntax, an unknown field, a wrong type): a 400. */
    @Provider
    public static class BadJson implements ExceptionMapper<com.fasterxml.jackson.core.JsonProcessingException> {
        @Override
        public Response toResponse(com.fasterxml.jackson.core.JsonProcessingException e) {
            String detail = e.getOriginalMessage();
            if (detail != null && detail.length() > 500) {
                detail = detail.substring(0, 500) + "...";
            }
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_json",
                    "the request body is not the JSON this endpoint takes: " + detail);
        }
    }

    /** Anything else is our fault: logged with an incident id the client can quote. */
    @Provider
    public static class Unexpected implements ExceptionMapper<Throwable> {
        private static final Logger LOG = Logger.getLogger(Unexpected.class.getName());

        @Override
        public Response toResponse(Throwable e) {
            String incident = UUID.randomUUID().toString();
            LOG.log(Level.SEVERE, e, () -> String.format("API request failed, incident %s", incident));
            return ApiError.response(Response.Status.INTERNAL_SERVER_ERROR, "internal_error",
                    "the request failed on the server; incident " + incident + " is in the server log");
        }
    }
}
