package dev.mailroom.ops.testing;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code PUT /api/v1/testing/clock?offset=P15D}: moves Mailroom's clock forward, for tests of
 * retention and ages without sleeping. Only in the testing WAR ({@code mailroom-testing.war}, which the ITs
 * deploy; the production WAR leaves this package out), and there only where
 * {@code mailroom.testing.clock-control=true}: elsewhere it answers 404.
 */
@Path("/v1/testing/clock")
@Produces(MediaType.APPLICATION_JSON)
public class TestingClockResource {

    @Inject
    @ConfigProperty(name = "mailroom.testing.clock-control", defaultValue = "false")
    boolean enabled;
    @Inject
    MovableClock clock;

    @GET
    public Response get() {
        if (!enabled) {
            return disabled();
        }
        return Response.ok(Map.of("now", clock.instant().toString(), "offset", clock.offset().toString())).build();
    }

    @PUT
    public Response move(@QueryParam("offset") String offset) {
        if (!enabled) {
            return disabled();
        }
        try {
            clock.offset(Duration.parse(offset == null ? "" : offset));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            return error(Response.Status.BAD_REQUEST, "invalid_offset",
                    "offset is a non-negative ISO-8601 duration such as P15D: " + e.getMessage());
        }
        return get();
    }

    private static Response disabled() {
        return error(Response.Status.NOT_FOUND, "not_found", "clock control is off");
    }

    /** The API's error shape ({@code status}, {@code error}, {@code reason}); this package uses no other adapter. */
    private static Response error(Response.Status status, String error, String reason) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(Map.of("status", status.getStatusCode(), "error", error, "reason", reason)).build();
    }
}
