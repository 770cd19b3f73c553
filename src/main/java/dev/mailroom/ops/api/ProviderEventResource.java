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

/**
 * {@code GET /api/v1/provider-events?profile=&after=&limit=}: the webhook inbox, oldest first, without bodies (sender
 * data), paged by id ({@code after}: the last id of the previous page); each with its reconciliation status
 * ({@code received}, {@code applied}, {@code unmatched}, {@code unreadable}, {@code ignored}), when and why.
 */
@Path("/v1/provider-events")
@Produces(MediaType.APPLICATION_JSON)
public class ProviderEventResource {

    @Inject
    WebhookInbox inbox;

    @GET
    public Response list(@QueryParam("profile") String profile,
                         @QueryParam("after") @DefaultValue("0") String after, @QueryParam("limit") @DefaultValue("100") @Limit(max = 1000) String limit) {
        int n = Integer.parseInt(limit.trim());
        if (profile == null || profile.isBlank()) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_profile", "profile is required");
        }
        long afterId;
        try {
            afterId = Long.parseLong(after.trim());
        } catch (NumberFormatException e) {
            return ApiError.response(Response.Status.BAD_REQUEST, "invalid_after", "after is the id of the previous page's last event");
        }
        return Response.ok(inbox.received(profile, afterId, n).stream().map(ProviderEventResource::view).toList()).build();
    }

    public record ProviderEventView(long id, String profile, String dedupeKey, Instant receivedAt, String status, Instant appliedAt,
                                    String detail, int bytes) { }

    private static ProviderEventView view(ProviderEvent e) {
        return new ProviderEventView(e.getId(), e.getProfile(), e.getDedupeKey(), e.getReceivedAt(), e.getStatus(), e.getAppliedAt(),
                e.getDetail(), e.getBody().length);
    }
}
