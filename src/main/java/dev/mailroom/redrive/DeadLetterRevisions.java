package dev.mailroom.redrive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterActions;
import dev.mailroom.platform.Refused;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.SendJob;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * Edit before replay: a new payload revision, checked against the job schema like any job, stored
 * beside the untouched original with who, when, why and a diff. The idempotency key stays the
 * original's unless the operator asks for a new one, which is recorded.
 */
@ApplicationScoped
public class DeadLetterRevisions {

    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public record Revision(long deadLetterId, int revision, String createdBy, Instant createdAt, String reason,
                           String diff, String idempotencyKey, boolean newIdempotencyKey, String payload) { }

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    JobParser parser;
    @Inject
    DeadLetterActions actions;
    @Inject
    RedriveSteps steps;
    @Inject
    Clock clock;

    @Transactional
    public Revision revise(long deadLetterId, String payload, boolean newKey, String actor, String reason) {
        if (reason == null || reason.isBlank()) {
            throw new Refused.Invalid("invalid_request", "an edit needs a reason: it is recorded with who and why");
        }
        if (payload == null || payload.isBlank()) {
            throw new Refused.Invalid("invalid_payload", "payload is the edited job, as a JSON object or a string");
        }
        DeadLetter d = em.find(DeadLetter.class, deadLetterId, LockModeType.PESSIMISTIC_WRITE);
        if (d == null) {
            throw new Refused.NotFound("dead_letter_not_found", "no dead letter with id " + deadLetterId);
        }
        if (!DeadLetter.Status.open.name().equals(d.getStatus())) {
            throw new Refused.Conflict("not_open", "dead letter " + deadLetterId + " is " + d.getStatus()
                    + ", only an open one can be edited");
        }
        DeadLetterRevision previous = steps.latest(deadLetterId);
        String before = previous != null ? utf8(previous.getPayload()) : d.getPayload() == null ? "" : utf8(d.getPayload());
        if (previous == null && d.isPayloadTruncated()) {
            throw new Refused.Conflict("payload_truncated", "dead letter " + deadLetterId + " keeps only the first "
                    + d.getPayload().length + " of " + d.getPayloadSize() + " bytes: edit it from the DLQ message instead");
        }
        SendJob job = parse(payload);
        if (!d.getMessageId().equals(job.messageId())) {
            throw new Refused.Invalid("invalid_payload", "message_id must stay " + d.getMessageId()
                    + " (it is the job's identity); got " + job.messageId());
        }
        String originalKey = originalKey(d);
        String key = job.idempotencyKey();
        int revision = previous == null ? 1 : previous.getRevision() + 1;
        String stored = payload;
        if (!newKey && !key.equals(originalKey)) {
            throw new Refused.Invalid("idempotency_key_changed", "idempotency_key must stay " + originalKey
                    + ": it is what keeps a replay from sending twice; set new_idempotency_key to replay under a new"
                    + " key on purpose");
        }
        if (newKey && key.equals(originalKey)) {
            key = boundedKey(originalKey + ".r" + revision);
            stored = withKey(payload, key);
        }
        String diff = PayloadDiff.diff(pretty(before), pretty(stored));
        DeadLetterRevision r = new DeadLetterRevision(deadLetterId, revision, stored.getBytes(StandardCharsets.UTF_8),
                actor, clock.instant(), reason.trim(), diff, key, newKey);
        em.persist(r);
        actions.edited(d, actor, "revision " + revision + ": " + reason.trim()
                + (newKey ? "; new idempotency key " + key + " (was " + originalKey + ")" : ""));
        return view(r);
    }

    public List<Revision> revisions(long deadLetterId) {
        if (em.find(DeadLetter.class, deadLetterId) == null) {
            throw new Refused.NotFound("dead_letter_not_found", "no dead letter with id " + deadLetterId);
        }
        return em.createQuery("select r from DeadLetterRevision r where r.deadLetterId = :d order by r.revision",
                        DeadLetterRevision.class)
                .setParameter("d", deadLetterId).getResultStream().map(DeadLetterRevisions::view).toList();
    }

    private SendJob parse(String payload) {
        ParseResult parsed = parser.parse(payload.getBytes(StandardCharsets.UTF_8));
        if (parsed instanceof ParseResult.Rejected rejected) {
            throw new Refused.Invalid("invalid_payload", "the edited job is not valid (" + rejected.reason() + "): "
                    + rejected.detail());
        }
        return ((ParseResult.Parsed) parsed).job();
    }

    /**
     * The key the job was sent under: what the original payload says (its bytes are the authority; a
     * poison job's row may know only its message id), else the row's, else the message id.
     */
    static String originalKey(DeadLetter d) {
        try {
            JsonNode root = d.getPayload() == null ? null : PRETTY.readTree(d.getPayload());
            JsonNode key = root == null ? null : root.get("idempotency_key");
            if (key != null && key.isTextual() && !key.asText().isBlank()) {
                return key.asText();
            }
        } catch (IOException notJson) {
            // a poison payload that is not JSON: the row's key, else the message id
        }
        return d.getIdempotencyKey() != null ? d.getIdempotencyKey() : d.getMessageId();
    }

    static String boundedKey(String key) {
        return key.length() <= 200 ? key : key.substring(key.length() - 200);
    }

    private static String withKey(String payload, String key) {
        try {
            ObjectNode root = (ObjectNode) PRETTY.readTree(payload);
            root.put("idempotency_key", key);
            return PRETTY.writeValueAsString(root);
        } catch (IOException | ClassCastException e) {
            throw new Refused.Invalid("invalid_payload", "payload is not a JSON object");
        }
    }

    /** Pretty-printed JSON so the diff is per field; anything else as it is. */
    static String pretty(String text) {
        try {
            JsonNode node = PRETTY.readTree(text);
            return node == null ? text : PRETTY.writeValueAsString(node);
        } catch (IOException e) {
            return text;
        }
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Revision view(DeadLetterRevision r) {
        return new Revision(r.getDeadLetterId(), r.getRevision(), r.getCreatedBy(), r.getCreatedAt(), r.getReason(),
                r.getDiff(), r.getIdempotencyKey(), r.isNewIdempotencyKey(), utf8(r.getPayload()));
    }
}
