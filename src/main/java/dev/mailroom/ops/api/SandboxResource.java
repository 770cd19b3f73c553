package dev.mailroom.ops.api;

import dev.mailroom.provider.sandbox.SandboxAttachment;
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
        java.util.List<SandboxMail> mails = sandbox.recent(Integer.parseInt(limit));
        java.util.Map<Long, java.util.List<SandboxAttachment>> files =
                sandbox.attachmentsOf(mails.stream().map(SandboxMail::getId).toList());
        return Response.ok(mails.stream().map(m -> view(m, files.getOrDefault(m.getId(), java.util.List.of())))
                .toList()).build();
    }

    public record SandboxMailView(long id, String messageId, String idempotencyKey, String from, String recipients,
                                  String subject, String text, String html, java.time.Instant recordedAt,
                                  java.util.List<AttachmentView> attachments) { }

    /** A kept file with its bytes (base64), as the job contract writes an inline attachment. */
    public record AttachmentView(String filename, String contentType, long size, String sha256, String contentBase64) { }

    private static SandboxMailView view(SandboxMail m, java.util.List<SandboxAttachment> files) {
        return new SandboxMailView(m.getId(), m.getMessageId(), m.getIdempotencyKey(), m.getFromAddress(),
                m.getRecipients(), m.getSubject(), m.getTextBody(), m.getHtmlBody(), m.getRecordedAt(),
                files.stream().map(a -> new AttachmentView(a.getFilename(), a.getContentType(), a.getSizeBytes(),
                        a.getSha256(), java.util.Base64.getEncoder().encodeToString(a.getContent()))).toList());
    }
}
