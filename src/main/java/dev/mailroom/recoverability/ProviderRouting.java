package dev.mailroom.recoverability;

import dev.mailroom.provider.ProviderResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Which provider of a queue's chain a job goes to, and where it goes after a failure: pure decisions
 * beside {@link RecoverabilityPolicy}, tested from tables. They decide; the send path carries out.
 *
 * <p>Before a call ({@link #choose}): the first provider of the chain whose breaker lets a call through
 * and that this job has not already been refused by; when none, the job waits on the broker until the
 * earliest breaker may let a call through (plus a jittered spread, so a backlog does not come back in
 * one wave). Waiting uses up no retry: an outage of any length ends in sends.
 *
 * <p>After a failure ({@link #afterFailure}): the job moves to the next provider only when its attempt
 * never passed the point of no return <em>and</em> the provider itself refused it (no connection, or a
 * {@code systemic} answer such as 535 or 401): then nothing of it reached anybody. An attempt that
 * passed the point of no return, or came back {@code ambiguous}, stays with {@link RecoverabilityPolicy}
 * (which retries it with the same key only where the provider drops duplicates): two providers never
 * both get one job. A failure that leaves its provider's breaker open waits for the breaker without
 * using up a retry.
 */
public final class ProviderRouting {

    private ProviderRouting() {
    }

    /** One provider of the chain as its breaker sees it now. */
    public record Candidate(String name, boolean permits, Instant nextChance) {
        public Candidate {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(nextChance, "nextChance");
        }
    }

    /** Where a job goes now. */
    public sealed interface Route {
        /** Call this provider. */
        record Call(String provider) implements Route {
        }

        /** No provider may be called: the job waits on the broker, no retry used. */
        record Wait(Duration delay, String why) implements Route {
        }
    }

    /** What to do after a failed call, before the recoverability policy. */
    public sealed interface AfterFailure {
        /** Send the job to {@code provider} next (a copy due at once); no retry used. */
        record FailOver(String provider) implements AfterFailure {
        }

        /** The provider's breaker is open: wait for it on the broker; no retry used. */
        record WaitForBreaker(Duration delay) implements AfterFailure {
        }

        /** Nothing special: {@link RecoverabilityPolicy} decides. */
        record Decide() implements AfterFailure {
        }
    }

    /**
     * @param chain  the queue's providers in order, with their breakers' answers now
     * @param refused providers this job was already refused by (it failed over from them)
     * @param floor  the least wait
     * @param spread a wait is lengthened by a random share of this
     */
    public static Route choose(List<Candidate> chain, Set<String> refused, Instant now, Duration floor,
                               Duration spread, RandomGenerator jitter) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a queue's chain has at least one provider");
        }
        List<Candidate> open = chain.stream().filter(c -> !refused.contains(c.name())).toList();
        // refused by every provider: start over at the head of the chain, the breakers pace it
        List<Candidate> candidates = open.isEmpty() ? chain : open;
        for (Candidate c : candidates) {
            if (c.permits()) {
                return new Route.Call(c.name());
            }
        }
        Instant earliest = candidates.stream().map(Candidate::nextChance).min(Instant::compareTo).orElseThrow();
        Duration until = Duration.between(now, earliest);
        Duration delay = (until.compareTo(floor) < 0 ? floor : until)
                .plusMillis(spread.toMillis() <= 0 ? 0 : jitter.nextLong(spread.toMillis() + 1));
        return new Route.Wait(delay, "breaker" + (candidates.size() == 1 ? " of " : "s of ")
                + String.join(", ", candidates.stream().map(Candidate::name).toList()) + " open");
    }

    /**
     * @param status                what the call came to
     * @param failureClass          its class
     * @param passedPointOfNoReturn whether the call got past the point after which the provider may have the mail
     * @param next                  the next provider of the chain this job may fail over to (not refused, breaker permits)
     * @param breakerOpen           whether the provider's breaker is open after this failure was counted
     * @param breakerWait           how long until that breaker lets a probe through (plus spread)
     */
    public static AfterFailure afterFailure(ProviderResponse.Status status, FailureClass failureClass,
                                            boolean passedPointOfNoReturn, Optional<String> next,
                                            boolean breakerOpen, Duration breakerWait) {
        if (passedPointOfNoReturn || status == ProviderResponse.Status.AMBIGUOUS
                || failureClass == FailureClass.AMBIGUOUS) {
            return new AfterFailure.Decide();
        }
        boolean providerRefused = status == ProviderResponse.Status.NOT_CONNECTED
                || failureClass == FailureClass.SYSTEMIC;
        if (providerRefused && next.isPresent()) {
            return new AfterFailure.FailOver(next.get());
        }
        if (breakerOpen && countsAgainstBreaker(status, failureClass) && failureClass != FailureClass.SYSTEMIC) {
            // systemic stays with the policy's Pause: that stops the line, which is more than one job waiting
            return new AfterFailure.WaitForBreaker(breakerWait);
        }
        return new AfterFailure.Decide();
    }

    /**
     * Whether a job that is tried again after this failure must go to the same provider: when the
     * provider may have it (past the point of no return, or ambiguous). A provider that drops duplicates
     * drops them by key among its own mail only; another provider would send a second copy.
     */
    public static boolean staysWithProvider(ProviderResponse.Status status, FailureClass failureClass,
                                            boolean passedPointOfNoReturn) {
        return passedPointOfNoReturn || status == ProviderResponse.Status.AMBIGUOUS
                || failureClass == FailureClass.AMBIGUOUS;
    }

    /**
     * Whether an outcome counts as the provider failing, for its breaker: no connection, and the
     * {@code transient}, {@code ambiguous} and {@code systemic} answers. A refusal of one recipient or
     * one content, a throttle, or our own fault is a provider that works.
     */
    public static boolean countsAgainstBreaker(ProviderResponse.Status status, FailureClass failureClass) {
        if (status == ProviderResponse.Status.NOT_CONNECTED || status == ProviderResponse.Status.AMBIGUOUS) {
            return true;
        }
        return failureClass == FailureClass.TRANSIENT || failureClass == FailureClass.AMBIGUOUS
                || failureClass == FailureClass.SYSTEMIC;
    }
}
