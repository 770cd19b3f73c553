package dev.mailroom.ops.api;

import dev.mailroom.job.HeldKey;
import dev.mailroom.job.KeyLedger;
import dev.mailroom.send.KeyOrders;
import jakarta.inject.Inject;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/keys?state=held[&queue=]}: the ordering keys held after a dead-lettered head (a queue set to
 * {@code hold}), with why, since when and how many jobs wait. {@code POST /api/v1/keys/release?queue=&key=} with
 * {@code {"reason": ...}} (operators): the key's first waiting job goes, the later ones after it, in order. Query
 * parameters, not path segments: a key may hold any character but a control character, a slash included.
 */
@Path("/v1/keys")
@Produces(MediaType.APPLICATION_JSON)
public class KeyResource {

    @Inject
    KeyLedger keys;
    @Inject
    KeyOrders orders;
    @Context
    SecurityContext security;

    @GET
    public Map<String, List<HeldKey>> held(@QueryParam("state") @DefaultValue("held")
                                           @Pattern(regexp = "held", message = "invalid_state: state is held (the only "
                                                   + "state of a key kept: a key that is not held needs nothing)")
                                           String state,
                                           @QueryParam("queue")
                                           @Size(max = 200, message = "invalid_queue: queue is at most 200 characters")
                                           String queue,
                                           @QueryParam("limit") @DefaultValue("100") @Limit(max = 1000) String limit) {
        return Map.of("keys", keys.held(queue, Integer.parseInt(limit)));
    }

    @POST
    @Path("/release")
    @Consumes(MediaType.APPLICATION_JSON)
    public Map<String, List<HeldKey>> release(@QueryParam("queue")
                                              @NotNull(message = "queue_required: name the key's queue: ?queue=")
                                              @Size(max = 200, message = "invalid_queue: queue is at most 200 characters")
                                              String queue,
                                              @QueryParam("key")
                                              @NotNull(message = "key_required: name the key: ?key=")
                                              @Size(max = 200, message = "invalid_key: key is at most 200 characters")
                                              String key,
                                              DeadLetterResource.ActionRequest request) {
        orders.release(queue, key, Actors.of(security), request == null ? null : request.reason());
        return Map.of("keys", keys.held(queue, 1000));
    }
}
