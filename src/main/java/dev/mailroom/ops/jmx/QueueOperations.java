package dev.mailroom.ops.jmx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.deadletter.DeadLetter;
import dev.mailroom.deadletter.DeadLetterActions;
import dev.mailroom.deadletter.DeadLetterDetail;
import dev.mailroom.deadletter.DeadLetterStats;
import dev.mailroom.platform.BrokerQueues;
import dev.mailroom.platform.ConsumerControl;
import dev.mailroom.platform.Json;
import dev.mailroom.platform.Refused;
import dev.mailroom.redrive.RedriveRecord;
import dev.mailroom.redrive.RedriveRequest;
import dev.mailroom.redrive.Redrives;
import dev.mailroom.send.UnknownSends;
import dev.mailroom.stopline.LineState;
import dev.mailroom.stopline.StopLine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.ActivateRequestContext;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the queue MBeans do, on the core the REST API uses. The MBeans call it inside the deployment
 * ({@link QueueMBeans#inDeployment}: naming context, class loader) and without a transaction: the core's beans
 * bring their own transactions; a request context is activated per call.
 * Refusals stay {@link Refused} here; {@link QueueDeadLetters} turns them into what a JMX client can read.
 */
@ApplicationScoped
@ActivateRequestContext
public class QueueOperations {

    /** The actor JMX operations are recorded with. */
    static final String ACTOR = "jmx";

    @Inject
    BrokerQueues broker;
    @Inject
    DeadLetterStats stats;
    @Inject
    DeadLetterDetail detail;
    @Inject
    DeadLetterActions actions;
    @Inject
    ConsumerControl consumers;
    @Inject
    Redrives redrives;
    @Inject
    dev.mailroom.erasure.Erasure erasure;
    @Inject
    StopLine stopLine;
    @Inject
    Clock clock;
    @Inject
    dev.mailroom.job.PayloadRedaction redaction;
    @Inject
    UnknownSends unknownSends;

    private final ObjectMapper json = Json.snakeCaseMapper();

    public long depth(String queue) {
        return broker.figures("DLQ." + queue).depth();
    }

    public long openDeadLetters(String queue) {
        return stats.open(queue).open();
    }

    public long oldestOpenAgeSeconds(String queue) {
        Instant oldest = stats.open(queue).oldestFailedAt();
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, clock.instant()).getSeconds());
    }

    public boolean consumersPaused(String queue) {
        return consumers.paused(queue);
    }

    /** What began the outage the line is stopped in (as the REST API's {@code paused_reason}). */
    public String pausedReason(String queue) {
        LineState line = stopLine.state(queue);
        return line.paused() ? line.episode().firstReason().wireName() : "";
    }

    /** When that outage began (as the REST API's {@code paused_since}). */
    public String pausedSince(String queue) {
        LineState line = stopLine.state(queue);
        return line.paused() ? line.episode().start().toString() : "";
    }

    public void pause(String queue) {
        stopLine.pauseByOperator(queue, ACTOR);
    }

    public void resume(String queue) {
        stopLine.resumeByOperator(queue, ACTOR);
    }

    public String planRedrive(String queue, String filterJson) {
        RedriveRequest request = JmxRequests.forQueue(filterJson, queue, json);
        return write(facade("plan", () -> redrives.plan(request, ACTOR)));
    }

    public String runRedrive(String queue, String planId) {
        requireId(planId);
        RedriveRecord plan = facade("record", () -> redrives.record(planId));
        String planQueue = plan == null || plan.filter() == null ? null : plan.filter().queue();
        if (!queue.equals(planQueue)) {
            throw new Refused.Conflict("other_queue", "plan " + planId + " selects dead letters of "
                    + (planQueue == null ? "every queue" : planQueue) + ", not only " + queue
                    + "; run it where it was planned (its queue's MBean or the REST API)");
        }
        return write(facade("run", () -> redrives.run(planId, ACTOR)));
    }

    public String redriveRecord(String planId) {
        requireId(planId);
        return write(facade("record", () -> redrives.record(planId)));
    }

    public String discard(String queue, long deadLetterId, String reason) {
        String of = detail.envelope(deadLetterId).map(DeadLetterDetail.Envelope::sourceQueue)
                .orElseThrow(() -> new Refused.NotFound("dead_letter_not_found", "no dead letter with id " + deadLetterId));
        if (!queue.equals(of)) {
            throw new Refused.Conflict("other_queue", "dead letter " + deadLetterId + " is of queue " + of + ", not "
                    + queue + " (use that queue's MBean)");
        }
        DeadLetter d = actions.discard(deadLetterId, ACTOR, reason);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", d.getId());
        out.put("message_id", d.getMessageId());
        out.put("source_queue", d.getSourceQueue());
        out.put("status", d.getStatus());
        out.put("actor", ACTOR);
        out.put("reason", reason == null ? null : reason.trim());
        return write(out);
    }

    public String markSent(String queue, String messageId, String reason) {
        unknownSends.markSent(messageId, queue, ACTOR, reason);
        return unknownAnswer(queue, messageId, "sent_to_provider", null, reason);
    }

    public String sendAgain(String queue, String messageId, String reason) {
        String copy = unknownSends.sendAgain(messageId, queue, ACTOR, reason);
        return unknownAnswer(queue, messageId, "received", copy, reason);
    }

    private String unknownAnswer(String queue, String messageId, String state, String copy, String reason) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("message_id", messageId);
        out.put("queue", queue);
        out.put("state", state);
        if (copy != null) {
            out.put("jms_message_id", copy);
        }
        out.put("actor", ACTOR);
        out.put("reason", reason == null ? null : reason.trim());
        return write(out);
    }

    private static void requireId(String planId) {
        if (planId == null || planId.isBlank()) {
            throw new Refused.Invalid("invalid_request", "a plan id is required");
        }
    }

    /** A call into the redrive facade; "not implemented" names the facade method, for the operator and the log. */
    private static <T> T facade(String method, Supplier<T> call) {
        try {
            return call.get();
        } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException("the redrive facade " + Redrives.class.getName() + "." + method
                    + " is not available in this build: " + e.getMessage());
        }
    }

    /** An answer as JSON, payloads redacted: JMX has no viewer/operator distinction and no reveal. */
    /** Erases one address everywhere (docs/erasure.md), recorded as asked by {@value #ACTOR}: the record as JSON. */
    public String erase(String address, String reason) {
        return write(erasure.erase(address, ACTOR, reason));
    }

    /** The erasure audit, newest first (at most {@code limit}, 1-1000 as through the API), as JSON. */
    public String erasures(int limit) {
        if (limit < 1 || limit > 1000) {
            throw new Refused.Invalid("invalid_limit", "limit must be between 1 and 1000, got " + limit);
        }
        return write(erasure.list(limit));
    }

    private String write(Object value) {
        try {
            return json.writeValueAsString(new dev.mailroom.redrive.ViewRedaction(redaction).apply(json.valueToTree(value)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write the answer as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
