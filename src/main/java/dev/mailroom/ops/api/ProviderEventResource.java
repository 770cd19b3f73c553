package dev.mailroom.ops.api;

import dev.mailroom.reconcile.ProviderEvent;
import dev.mailroom.reconcile.WebhookInbox;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Instant;

/** {@code GET /api/v1/provider-events?profile=&limit=}: the webhook inbox, oldest first, without bodies (sender data). */
@Path("/v1/provider-events")
@Produces(MediaType.APPLICATION_JSON)
public class ProviderEventResource {

    @Inject
    WebhookInbox inbox;

    @GET
    public Response list(@QueryParam("profile") String profile, @QueryParam("limit") @DefaultValue("100") @Limit(max = 1000) String limit) {
        int n = Integer.parseInt(limit.trim());
        if (profile == null || profile.isBlank()) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_profile", "profile is required");
        }
        return Response.ok(inbox.received(profile, n).stream().map(ProviderEventResource::view).toList()).build();
    }

    public record ProviderEventView(long id, String profile, String dedupeKey, Instant receivedAt, String status, int bytes) { }

    private static ProviderEventView view(ProviderEvent e) {
        return new ProviderEventView(e.getId(), e.getProfile(), e.getDedupeKey(), e.getReceivedAt(), e.getStatus(), e.getBody().length);
    }
}
