package dev.mailroom.ops.security;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.logging.Logger;

/**
 * The console's login: {@code POST /api/v1/session} {@code {"username", "password"}} checks them against the
 * server's security realm and starts a session (cookie {@code HttpOnly}, {@code SameSite=Strict}, a fresh id)
 * with a CSRF token; {@code GET} shows the current session, {@code DELETE} logs out.
 */
@Path("/v1/session")
@Produces(MediaType.APPLICATION_JSON)
public class SessionResource {

    private static final Logger LOG = Logger.getLogger(SessionResource.class.getName());

    /** The login form. */
    public record Login(String username, String password) { }

    /** A logged-in session: who, with which Mailroom roles, and the token its write requests carry in {@code X-CSRF-Token}. */
    public record SessionInfo(String username, List<String> roles, String csrfToken) {
        static SessionInfo of(ConsoleSession s) {
            return new SessionInfo(s.username(), s.roles(), s.csrfToken());
        }
    }

    @Context
    HttpServletRequest request;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response login(Login login) {
        if (login == null || blank(login.username()) || login.password() == null) {
            return refuse(Response.Status.BAD_REQUEST, "invalid_login", "username and password are required");
        }
        ConsoleSession.end(request);
        try {
            request.login(login.username(), login.password());
        } catch (ServletException e) {
            LOG.info(() -> "console login refused for " + login.username());
            return refuse(Response.Status.UNAUTHORIZED, "unauthenticated", "the user name or password is not right");
        }
        List<String> roles = ConsoleSession.rolesOf(request);
        if (roles.isEmpty()) {
            logout();
            return refuse(Response.Status.FORBIDDEN, "forbidden",
                    "user " + login.username() + " has neither role mailroom-viewer nor mailroom-operator");
        }
        ConsoleSession session = ConsoleSession.start(request, login.username(), roles);
        LOG.info(() -> "console login of " + login.username() + " " + roles);
        return Response.ok(SessionInfo.of(session)).header("Cache-Control", "no-store").build();
    }

    @GET
    public Response current() {
        ConsoleSession session = ConsoleSession.of(request);
        if (session == null) {
            return refuse(Response.Status.UNAUTHORIZED, "unauthenticated", "no console session");
        }
        return Response.ok(SessionInfo.of(session)).header("Cache-Control", "no-store").build();
    }

    @DELETE
    public Response end() {
        ConsoleSession.end(request);
        logout();
        return Response.noContent().build();
    }

    private void logout() {
        try {
            request.logout();
        } catch (ServletException | RuntimeException e) {
            LOG.fine(() -> "logout: " + e);
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** The API's error shape ({@code status}, {@code error}, {@code reason}), as {@link AccessFilter} writes it. */
    private static Response refuse(Response.Status status, String error, String reason) {
        return Response.status(status).type(jakarta.ws.rs.core.MediaType.APPLICATION_JSON_TYPE)
                .entity(java.util.Map.of("status", status.getStatusCode(), "error", error, "reason", reason))
                .build();
    }
}
