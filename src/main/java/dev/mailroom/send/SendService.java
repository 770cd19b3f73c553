package dev.mailroom.send;

import dev.mailroom.attachment.Attachments;
import dev.mailroom.job.Begin;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobState;
import dev.mailroom.job.RenderedContent;
import dev.mailroom.job.SendJob;

import dev.mailroom.platform.MailroomMetrics;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderCalls;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.AimdRateLimiter;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.recoverability.Failure;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.recoverability.FailureClassifier;
import dev.mailroom.recoverability.RecoverabilityComponents;
import dev.mailroom.recoverability.RecoverabilityPolicy;
import dev.mailroom.recoverability.RecoveryAction;
import dev.mailroom.recoverability.ProviderRouting;
import dev.mailroom.recoverability.TransactionPlan;
import dev.mailroom.stopline.StopLine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

/**
 * The send path for one delivery of one message: past the door ({@link SendDoor}: parsed, checked, rendered), admit
 * (the pure {@code AdmissionPolicy},
 * through the ledger, which gathers its facts and records its decision), call the provider, and on a
 * failure classify it, decide (the pure {@link RecoverabilityPolicy}) and carry the decision out. Runs
 * inside the delivery's JTA transaction; every way out acknowledges the delivery with its outcome
 * recorded. An exception nobody foresaw propagates: the delivery rolls back and the broker's
 * redelivery limit is the backstop. Which of the ledger's steps commit on their own and which with the
 * delivery is the provider's {@link TransactionPlan}, decided before the claim.
 */
@ApplicationScoped
public class SendService {

    private static final Logger LOG = Logger.getLogger(SendService.class.getName());
    /** A rate-limit wait up to this long is paced in place; a longer one goes back to the broker. */
    static final Duration MAX_PACING = Duration.ofSeconds(1);
    /** A job that fails over is due again at once, on the next provider of its chain. */
    static final Duration FAILOVER_DELAY = Duration.ofMillis(50);

    @Inject
    SendDoor door;
    @Inject
    Attachments attachments;
    @Inject
    JobLedger ledger;
    @Inject
    LateOutcomes lateOutcomes;
    @Inject
    ProviderBreakers breakers;
    @Inject
    ProviderCalls calls;
    @Inject
    FailureClassifier classifier;
    @Inject
    RecoverabilityComponents.Policies policies;
    @Inject
    RecoveryExecutor executor;
    @Inject
    MailroomMetrics metrics;
    @Inject
    Clock clock;
    @Inject
    Event<UnknownProviderCode> unknownCodes;
    @Inject
    Event<SendOutcomeUnknown> unknownSends;
    @Inject
    StopLine stopLine;
    @Inject
    ScheduledSends scheduled;
    @Inject
    KeyOrders keys;

    public void handle(Incoming in) {
        Optional<SendDoor.Prepared> prepared = door.prepare(in);
        if (prepared.isEmpty()) {
            return;
        }
        SendJob job = prepared.get().job();
        if (keys.waits(in, job)) {
            return;
        }
        send(in, prepared.get());
        // whichever way the delivery went: if the job ended, the next of its key goes (a redelivery of an ended job
        // comes here too, so a release lost with a rolled-back delivery is made by the next one)
        keys.after(in, job);
    }

    /** One delivery of a job that is not waiting for its key. */
    private void send(Incoming in, SendDoor.Prepared prepared) {
        SendJob job = prepared.job();
        if (scheduled.waits(in, job)) {
            return;
        }
        ProviderBreakers.Routed routed = breakers.route(in.queue(), in.refusedBy());
        if (routed instanceof ProviderBreakers.Waiting waiting) {
            // no provider of the chain may be called: the job waits on the broker, no retry used
            String copy = executor.scheduleCopy(in, waiting.delay(), 0);
            ledger.deferred(in.queue(), job.messageId(), copy, waiting.why() + ": waits " + waiting.delay()
                    + " on the broker, no retry used");
            metrics.outcome(in.queue(), "breaker_wait");
            return;
        }
        Optional<Delivery> admitted = admit(in, job, (ProviderBreakers.Choice) routed);
        if (admitted.isEmpty()) {
            return;
        }
        Delivery d = admitted.get();
        // fetched only now that the job is claimed and a provider is about to be called (Attachments says why)
        Attachments.Resolution files = attachments.resolve(job.attachments());
        if (files instanceof Attachments.Failed failed) {
            decideAndCarryOut(in, d, notCalled(d, failed.failure()), failed.failure(), null, false);
            return;
        }
        Call call = call(d, job, prepared.content(), ((Attachments.Resolved) files).attachments());
        if (call.superseded()) {
            superseded(in, job);
        } else if (call.bug() != null) {
            // our own code failed (not the provider): classified as internal, not swallowed
            LOG.log(java.util.logging.Level.SEVERE, call.bug(), () -> "provider call for job " + job.messageId() + " threw");
            ProviderResponse noAnswer = new ProviderResponse(ProviderResponse.Status.REJECTED, d.provider().name(), null,
                    null, String.valueOf(call.bug().getMessage()), null, null, call.bug().getClass().getName());
            decideAndCarryOut(in, d, noAnswer, Failure.internal(call.bug()), call.bug(), true);
        } else if (call.response().accepted()) {
            accepted(d, job, call.response());
        } else {
            failed(d, job, call);
        }
    }

    /** One admitted delivery: the provider it goes to and the ledger's steps its plan gives it. */
    private record Delivery(Incoming in, ProviderBreakers.Choice choice, LedgerSteps steps, Begin.Proceed proceed) {
        MailProvider provider() {
            return choice.guarded().provider();
        }

        AimdRateLimiter rateLimiter() {
            return choice.guarded().rateLimiter();
        }
    }

    /** What the provider call came to: an answer, or our own code's failure, or a redelivery that took over. */
    private record Call(ProviderResponse response, RuntimeException bug, boolean passedPointOfNoReturn,
                        boolean superseded) {
    }

    /** Paces to the provider's rate, then the claim; empty when the delivery ends there (its outcome recorded). */
    private Optional<Delivery> admit(Incoming in, SendJob job, ProviderBreakers.Choice choice) {
        MailProvider provider = choice.guarded().provider();
        AimdRateLimiter rateLimiter = choice.guarded().rateLimiter();
        Optional<Duration> wait = rateLimiter.tryReserve(MAX_PACING);
        wait.ifPresent(SendService::pace);
        TransactionPlan plan = plan(provider);
        LedgerSteps steps = LedgerSteps.of(plan, ledger);
        Begin begin = steps.begin(in, job, traits(provider), wait.isPresent(), plan.irrevocableFromTheStart());
        if (begin instanceof Begin.PutBack putBack) {
            // the provider is slowed down further than a short pause: the job goes back to the broker
            String copy = executor.scheduleCopy(in, putBack.delay(), 0);
            ledger.deferred(in.queue(), job.messageId(), copy, "provider rate limit ("
                    + String.format("%.1f", rateLimiter.rate()) + "/s): put back for " + putBack.delay());
            return Optional.empty();
        }
        if (begin instanceof Begin.Scheduled ahead) {
            // its send time is ahead after all (the copy came early by the clock that decided)
            scheduled.carryOut(in, ahead);
            return Optional.empty();
        }
        if (begin instanceof Begin.Ambiguous) {
            unknownSends.fire(new SendOutcomeUnknown(provider.name(), in.queue(), job.messageId(), begin.jobId(),
                    "crash", "the worker died after the point of no return", clock.instant()));
        }
        countWithheld(in.queue(), begin);
        if (!(begin instanceof Begin.Proceed proceed)) {
            metrics.outcome(in.queue(), SendOutcomes.of(begin));
            return Optional.empty();
        }
        return Optional.of(new Delivery(in, choice, steps, proceed));
    }

    /** The provider call, with the point of no return marked at the provider's checkpoint. */
    private Call call(Delivery d, SendJob job, RenderedContent content,
                      java.util.List<dev.mailroom.provider.MailAttachment> files) {
        Begin.Proceed proceed = d.proceed();
        java.util.concurrent.atomic.AtomicBoolean passedPointOfNoReturn = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean superseded = new java.util.concurrent.atomic.AtomicBoolean();
        try {
            // suppressed recipients are left out of the call itself: no RCPT TO, no payload entry names them
            ProviderResponse response = calls.send(d.provider(),
                    outbound(job.withoutRecipients(proceed.withheldPositions()), content).withAttachments(files), () -> {
                        // committed with the claim already when the provider writes at once and drops a duplicate
                        if (!proceed.irrevocable() && !markIrrevocable(d, job)) {
                            superseded.set(true);
                            throw new IllegalStateException("attempt " + proceed.attemptNumber() + " of job "
                                    + job.messageId() + " was closed by a redelivery of its message: not written to"
                                    + " the provider");
                        }
                        passedPointOfNoReturn.set(true);
                    }, !d.choice().probe());
            return new Call(response, null, passedPointOfNoReturn.get(), superseded.get());
        } catch (RuntimeException bug) {
            return new Call(null, bug, passedPointOfNoReturn.get(), superseded.get());
        }
    }

    /**
     * Commits the attempt's point of no return. When that commit fails, the mail is not written, yet the commit may
     * have landed (a lost answer, not a lost request): the worker's knowledge is kept to be recorded late.
     */
    private boolean markIrrevocable(Delivery d, SendJob job) {
        try {
            return ledger.markIrrevocable(d.proceed().attemptId());
        } catch (Exception unanswered) { // a failed commit comes through the proxy as an undeclared HeuristicMixedException
            lateOutcomes.notWritten(d.proceed(), d.in().queue(), job.messageId());
            throw unanswered;
        }
    }

    private void accepted(Delivery d, SendJob job, ProviderResponse response) {
        Incoming in = d.in();
        // first, and committed on its own: a broker failover or a kill after this is not an ambiguous send;
        // with the delivery when the provider's write is in it (then it commits exactly when that write does)
        try {
            d.steps().recordSent(d.proceed(), response);
        } catch (Exception unanswered) { // as in markIrrevocable: a failed commit may be a checked exception
            if (d.steps().ledgerCommitsOnItsOwn()) { // with the delivery, a rollback takes the provider's write too
                lateOutcomes.accepted(d.proceed(), response, in.queue(), job.messageId());
            }
            throw unanswered;
        }
        breakers.record(d.choice().guarded(), response.status(), null, null);
        stopLine.answered(in.queue(), d.provider().name(), null, null);
        d.rateLimiter().onSuccess();
        metrics.attempt(in.queue(), d.provider().name(), "accepted");
        metrics.outcome(in.queue(), JobState.sent_to_provider.name());
    }

    /** A refused or failed call: classified, the breakers told, then failed over, waited out or decided. */
    private void failed(Delivery d, SendJob job, Call call) {
        Incoming in = d.in();
        MailProvider provider = d.provider();
        ProviderResponse response = call.response();
        // by the table and profile of the instance that answered, not of the active provider of its kind
        Failure failure = classifier.classify(response, provider.mappingTable(), provider.mappingProfile());
        if (failure.failureClass() == FailureClass.THROTTLED) {
            d.rateLimiter().onThrottle();
        }
        if (failure.failureClass() == FailureClass.UNKNOWN) {
            // a code the mapping tables do not know: somebody must look at it and add it
            unknownCodes.fire(new UnknownProviderCode(provider.name(), response.code()
                    + (response.enhancedCode() == null ? "" : " " + response.enhancedCode()), in.queue(),
                    job.messageId(), clock.instant()));
        }
        ProviderBreakers.Guarded guarded = d.choice().guarded();
        boolean breakerOpen = breakers.record(guarded, response.status(), failure.failureClass(), response.summary());
        ProviderRouting.AfterFailure after = ProviderRouting.afterFailure(response.status(), failure.failureClass(),
                call.passedPointOfNoReturn(), breakers.nextAfter(in.queue(), provider.name(), in.refusedBy()),
                breakerOpen, breakers.waitFor(guarded));
        if (after instanceof ProviderRouting.AfterFailure.FailOver failOver) {
            reroute(d, in.refusedBy(provider.name()), response, failure,
                    new RecoveryAction.Reroute("failover from " + provider.name() + " to " + failOver.provider(), FAILOVER_DELAY));
            return;
        }
        if (after instanceof ProviderRouting.AfterFailure.WaitForBreaker w) {
            reroute(d, in, response, failure, new RecoveryAction.Reroute("breaker of " + provider.name() + " open", w.delay()));
            return;
        }
        Incoming next = in;
        if (ProviderRouting.staysWithProvider(response.status(), failure.failureClass(), call.passedPointOfNoReturn())) {
            // a copy tried again goes to this provider only: every other one of the chain counts as refused
            for (String other : breakers.chainNames(in.queue())) {
                if (!other.equals(provider.name())) {
                    next = next.refusedBy(other);
                }
            }
        }
        RecoveryAction action = decideAndCarryOut(next, d, response, failure, null, true);
        if (action instanceof RecoveryAction.Ack ack && RecoveryAction.Ack.UNKNOWN.equals(ack.outcome())) {
            unknownSends.fire(new SendOutcomeUnknown(provider.name(), in.queue(), job.messageId(), d.proceed().jobId(),
                    "call", JobLedger.describe(response), clock.instant()));
        }
    }

    /**
     * A redelivery of this message (the broker failed over while this worker was before its point of no return)
     * closed this attempt and owns the job: nothing was written to the provider, nothing is recorded here.
     */
    private void superseded(Incoming in, SendJob job) {
        LOG.warning(() -> "job " + job.messageId() + ": a redelivery of JMS message " + in.jmsMessageId()
                + " took over this attempt before its point of no return; this delivery stops without sending");
        metrics.outcome(in.queue(), "superseded_by_redelivery");
    }

    /** The suppression metrics of an admission: each recipient newly withheld, by reason; a job skipped altogether. */
    private void countWithheld(String queue, Begin begin) {
        java.util.List<dev.mailroom.recoverability.SuppressionDecision.Withheld> withheld =
                begin instanceof Begin.Proceed p ? p.withheld() : begin instanceof Begin.Suppressed s ? s.withheld() : java.util.List.of();
        withheld.stream().filter(w -> w.newlyWithheld()).forEach(w -> metrics.withheld(queue, w.reason()));
        if (begin instanceof Begin.Suppressed) {
            metrics.skipped(queue);
        }
    }

    private static ProviderTraits traits(MailProvider provider) {
        return new ProviderTraits(provider.name(), provider.dedupesByIdempotencyKey());
    }

    private static TransactionPlan plan(MailProvider provider) {
        return TransactionPlan.decide(new TransactionPlan.Facts(provider.writesInTheDeliveryTransaction(),
                provider.irrevocableFromTheStart(), provider.dedupesByIdempotencyKey()));
    }

    /** Carries out a failover or a wait for a breaker: nothing reached anybody, no retry used. */
    private void reroute(Delivery d, Incoming in, ProviderResponse response, Failure failure,
                         RecoveryAction.Reroute action) {
        metrics.attempt(in.queue(), d.provider().name(), failure.failureClass().wireName());
        d.steps().recordFailure(d.proceed(), response, failure, action, true);
        executor.carryOut(in, d.proceed(), failure, action, null);
        metrics.outcome(in.queue(), SendOutcomes.of(action));
    }

    /**
     * @param providerAnswered false when the provider was never called (an attachment could not be fetched): then
     *                         neither the provider's attempt count nor the stop-the-line hears of it, the failure is the
     *                         job's, not the provider's
     */
    private RecoveryAction decideAndCarryOut(Incoming in, Delivery d, ProviderResponse response, Failure failure,
                                             Throwable cause, boolean providerAnswered) {
        MailProvider provider = d.provider();
        Begin.Proceed proceed = d.proceed();
        if (providerAnswered) {
            metrics.attempt(in.queue(), provider.name(), failure.failureClass().wireName());
            stopLine.answered(in.queue(), provider.name(), failure.failureClass(), failure.text());
        } else {
            metrics.attachmentFetchFailed(in.queue(), failure.failureClass().wireName());
        }
        RecoveryAction action = executor.asCarriedOut(RecoverabilityPolicy.decide(failure,
                ledger.historyBefore(proceed.jobId(), proceed.attemptId()), policies.forQueue(in.queue()),
                traits(provider), proceed.expiresAt(), clock.instant(), ThreadLocalRandom.current()));
        d.steps().recordFailure(proceed, response, failure, action, providerAnswered);
        executor.carryOut(in, proceed, failure, action, cause);
        metrics.outcome(in.queue(), SendOutcomes.of(action));
        return action;
    }

    /** The attempt's record of a failure before the provider's call: nothing was written to it. */
    private static ProviderResponse notCalled(Delivery d, Failure failure) {
        return new ProviderResponse(ProviderResponse.Status.NOT_CONNECTED, d.provider().name(), failure.code(),
                failure.enhancedCode(), failure.text(), null, null, failure.errorType());
    }

    private static void pace(Duration wait) {
        if (wait.isZero() || wait.isNegative()) {
            return;
        }
        try {
            Thread.sleep(wait.toMillis(), wait.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pacing to the provider's rate limit", e);
        }
    }

    static OutboundMail outbound(SendJob job, RenderedContent content) {
        return new OutboundMail(job.messageId(), job.idempotencyKey(), job.from(), job.to(), job.cc(), job.bcc(),
                job.replyTo(), content.subject(), content.text(), content.html(), job.headers(), job.metadata(),
                job.tenant(), job.campaignId(), job.category(), job.unsubscribe());
    }
}
