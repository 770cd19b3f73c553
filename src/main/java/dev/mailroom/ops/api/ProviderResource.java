package dev.mailroom.ops.api;

import dev.mailroom.send.ProviderBreakers;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code GET /api/v1/providers}: every configured provider instance with its kind, its circuit breaker's
 * state ({@code closed}, {@code open}, {@code half_open}) and since when, its last failure, and its
 * current rate limit (calls per second).
 */
@Path("/v1/providers")
@Produces(MediaType.APPLICATION_JSON)
public class ProviderResource {

    @Inject
    ProviderBreakers breakers;

    @GET
    public List<ProviderBreakers.View> providers() {
        return breakers.views();
    }
}
