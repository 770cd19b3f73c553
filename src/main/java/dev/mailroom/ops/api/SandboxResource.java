package dev.mailroom.ops.api;

import dev.mailroom.provider.sandbox.SandboxMail;
import dev.mailroom.provider.sandbox.SandboxProvider;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code GET /api/v1/sandbox/messages?limit=}: what the sandbox provider would have sent, newest first. */
@Path("/v1/sandbox/messages")
@Produces(MediaType.APPLICATION_JSON)
public class SandboxResource {

    @Inject
    SandboxProvider sandbox;

    @GET
    public Response messages(@QueryParam("limit") @DefaultValue("50") @Limit(max = 1000) String limit) {
        return Response.ok(sandbox.recent(Integer.parseInt(limit)).stream().map(SandboxResource::view).toList()).build();
    }

    public record SandboxMailView(long id, String messageId, String idempotencyKey, String from, String recipients,
                                  String subject, String text, String html, java.time.Instant recordedAt) { }

    private static SandboxMailView view(SandboxMail m) {
        return new SandboxMailView(m.getId(), m.getMessageId(), m.getIdempotencyKey(), m.getFromAddress(),
                m.getRecipients(), m.getSubject(), m.getTextBody(), m.getHtmlBody(), m.getRecordedAt());
    }
}
