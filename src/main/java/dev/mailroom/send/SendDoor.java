package dev.mailroom.send;

import dev.mailroom.attachment.Attachments;
import dev.mailroom.contract.AttachmentRule;
import dev.mailroom.contract.UnsubscribeRule;
import dev.mailroom.deadletter.DeadLetterRecorder;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.JobState;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.RenderedContent;
import dev.mailroom.job.SendJob;
import dev.mailroom.job.TemplateException;
import dev.mailroom.job.TemplateRenderer;
import dev.mailroom.job.UnsubscribeRequirement;
import dev.mailroom.platform.MailroomMetrics;
import dev.mailroom.recoverability.Admission;
import dev.mailroom.recoverability.AdmissionFacts;
import dev.mailroom.recoverability.AdmissionPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;

/**
 * The send path's door: a delivery is parsed, held to what the contract cannot say alone (a bulk queue's
 * unsubscribe, the attachments' sizes and sources, the send time's horizon) and rendered, before anything is claimed
 * or any provider is chosen; what fails here is poison, dead-lettered with its bytes and reason.
 */
@ApplicationScoped
public class SendDoor {

    @Inject
    JobParser parser;
    @Inject
    TemplateRenderer renderer;
    @Inject
    UnsubscribeRequirement unsubscribe;
    @Inject
    Attachments attachments;
    @Inject
    ScheduledSends scheduled;
    @Inject
    DeadLetterRecorder deadLetters;
    @Inject
    MailroomMetrics metrics;

    /** A parsed, rendered job. */
    public record Prepared(SendJob job, RenderedContent content) {
    }

    /** The job, parsed and rendered; empty when it is poison (dead-lettered here). */
    public Optional<Prepared> prepare(Incoming in) {
        ParseResult parsed = parser.parse(in.body());
        if (parsed instanceof ParseResult.Rejected rejected) {
            poison(in, rejected);
            return Optional.empty();
        }
        SendJob job = ((ParseResult.Parsed) parsed).job();
        if (unsubscribe.decide(in.queue(), job) instanceof UnsubscribeRule.Refused refused) {
            poison(in, new ParseResult.Rejected(refused.reason(), refused.violation(), job.messageId()));
            return Optional.empty();
        }
        if (attachments.admit(job.attachments()) instanceof AttachmentRule.Refused refused) {
            poison(in, new ParseResult.Rejected(refused.reason(), refused.violation(), job.messageId()));
            return Optional.empty();
        }
        Optional<ParseResult.Rejected> sendTime = scheduled.refusal(job);
        if (sendTime.isPresent()) {
            poison(in, sendTime.get());
            return Optional.empty();
        }
        try {
            return Optional.of(new Prepared(job, renderer.render(job)));
        } catch (TemplateException e) {
            poison(in, new ParseResult.Rejected(e.reason(), e.getMessage(), job.messageId()));
            return Optional.empty();
        }
    }

    /** The job itself is wrong: admission's first row, carried out by the dead-letter recorder. */
    private void poison(Incoming in, ParseResult.Rejected rejected) {
        Admission admission = AdmissionPolicy.decide(AdmissionFacts.rejected(rejected.reason().name(), rejected.detail()));
        if (!(admission instanceof Admission.Poison)) {
            throw new IllegalStateException("a rejected job must be poison, not " + admission);
        }
        deadLetters.poison(in, rejected);
        metrics.outcome(in.queue(), JobState.dead_lettered.name());
    }
}
