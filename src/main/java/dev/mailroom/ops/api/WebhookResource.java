package dev.mailroom.ops.api;

import dev.mailroom.reconcile.Receipt;
import dev.mailroom.reconcile.Verdict;
import dev.mailroom.reconcile.WebhookInbox;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code POST /api/v1/webhooks/{profile}}: a provider's delivery events. Unauthenticated by design (the
 * access rules let webhooks through): the profile's signature is the authentication. Only configured
 * profiles answer; 202 once stored (or already stored), 4xx with the machine reason when refused.
 */
@Path("/v1/webhooks/{profile}")
public class WebhookResource {

    @Inject
    WebhookInbox inbox;

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response receive(@PathParam("profile") String profile, @Context HttpHeaders headers, byte[] body) {
        Map<String, String> first = new HashMap<>();
        headers.getRequestHeaders().forEach((name, values) -> first.put(name, values.isEmpty() ? "" : values.get(0)));
        Receipt receipt = inbox.receive(profile, first, body == null ? new byte[0] : body);
        if (receipt instanceof Receipt.UnknownProfile) {
            return ApiError.response(Response.Status.NOT_FOUND, "not_found", "no webhook profile " + profile + " is configured");
        }
        if (receipt instanceof Receipt.Refused refused) {
            return ApiError.response(status(refused.reason()), "webhook_" + refused.reason().name(), refused.detail());
        }
        Receipt.Stored stored = (Receipt.Stored) receipt;
        return Response.accepted(Map.of("event_id", stored.eventId(), "duplicate", stored.duplicate())).build();
    }

    private static int status(Verdict.Reason reason) {
        return switch (reason) {
            case oversized -> 413;
            case malformed -> 400;
            case bad_signature, bad_certificate -> 401;
            case topic_not_allowed -> 403;
            case stale, replayed -> 409;
        };
    }
}
