package dev.mailroom.send;

import dev.mailroom.deadletter.DeadLetterRecorder;
import dev.mailroom.ops.MailroomMetrics;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * The send path for one delivery of one message: parse, render, claim, call the provider, record.
 * Runs inside the delivery's JTA transaction and answers what the adapter must do with the delivery.
 */
@ApplicationScoped
public class SendService {

    /** What the consuming adapter does with the delivery once {@link #handle} returns. */
    public enum Disposition {
        /** Commit: the message is acknowledged; its outcome is recorded. */
        ACKNOWLEDGE,
        /** Roll back: the broker redelivers it (and dead-letters it after its redelivery limit). */
        REDELIVER
    }

    private static final Logger LOG = Logger.getLogger(SendService.class.getName());

    @Inject
    JobParser parser;
    @Inject
    TemplateRenderer renderer;
    @Inject
    JobLedger ledger;
    @Inject
    DeadLetterRecorder deadLetters;
    @Inject
    MailProvider provider;
    @Inject
    MailroomMetrics metrics;

    public Disposition handle(Incoming in) {
        ParseResult parsed = parser.parse(in.body());
        if (parsed instanceof ParseResult.Rejected rejected) {
            deadLetters.poison(in, rejected);
            metrics.outcome(in.queue(), "dead_lettered");
            return Disposition.ACKNOWLEDGE;
        }
        SendJob job = ((ParseResult.Parsed) parsed).job();
        RenderedContent content;
        try {
            content = renderer.render(job);
        } catch (TemplateException e) {
            deadLetters.poison(in, new ParseResult.Rejected(e.reason(), e.getMessage(), job.messageId()));
            metrics.outcome(in.queue(), "dead_lettered");
            return Disposition.ACKNOWLEDGE;
        }

        Begin begin = ledger.begin(in, job, provider.name(), provider.dedupesByIdempotencyKey());
        if (!(begin instanceof Begin.Proceed proceed)) {
            metrics.outcome(in.queue(), outcomeOf(begin));
            return Disposition.ACKNOWLEDGE;
        }

        ProviderResponse response = provider.send(outbound(job, content),
                () -> ledger.markIrrevocable(proceed.attemptId()));
        metrics.attempt(in.queue(), provider.name(), response.status().name().toLowerCase());
        if (response.accepted()) {
            ledger.recordSent(proceed, response);
            metrics.outcome(in.queue(), JobState.sent_to_provider.name());
            return Disposition.ACKNOWLEDGE;
        }
        ledger.recordFailure(proceed, response);
        LOG.warning(() -> String.format("job %s attempt %d failed (%s); the broker will redeliver it",
                job.messageId(), proceed.attemptNumber(), JobLedger.describe(response)));
        return Disposition.REDELIVER;
    }

    private static String outcomeOf(Begin b) {
        if (b instanceof Begin.AlreadyFinished) {
            return "redelivery_ignored";
        } else if (b instanceof Begin.DuplicateMessage) {
            return "duplicate_message_ignored";
        } else if (b instanceof Begin.DuplicateKey) {
            return JobState.duplicate_suppressed.name();
        } else if (b instanceof Begin.Expired) {
            return JobState.discarded.name();
        } else if (b instanceof Begin.Ambiguous) {
            return JobState.unknown.name();
        }
        throw new IllegalArgumentException("not a final answer: " + b);
    }

    static OutboundMail outbound(SendJob job, RenderedContent content) {
        return new OutboundMail(job.messageId(), job.idempotencyKey(), job.from(), job.to(), job.cc(), job.bcc(),
                job.replyTo(), content.subject(), content.text(), content.html(), job.headers(), job.metadata(),
                job.tenant(), job.campaignId(), job.category());
    }
}
