package dev.mailroom.send;

import dev.mailroom.provider.BreakerStateChanged;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.registry.ProviderRegistry;
import dev.mailroom.recoverability.AimdRateLimiter;
import dev.mailroom.recoverability.CircuitBreaker;
import dev.mailroom.recoverability.FailureClass;
import dev.mailroom.recoverability.ProviderRouting;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.MeterRegistry;
import dev.mailroom.platform.Meters;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Each configured provider's circuit breaker ({@link CircuitBreaker}, settings {@code mailroom.breaker.*})
 * and rate limiter ({@link AimdRateLimiter}, {@code mailroom.rate-limit.*}), and the routing of a job over
 * its queue's chain ({@link ProviderRouting}). Every change of a breaker's state is fired as
 * {@link BreakerStateChanged} (after the breaker's lock is released) and shown by the gauge
 * {@code mailroom.provider.breaker{provider,state}} (1 for the current state, 0 for the others).
 */
@ApplicationScoped
public class ProviderBreakers implements dev.mailroom.platform.settings.CheckedAtBoot {

    private static final Logger LOG = Logger.getLogger(ProviderBreakers.class.getName());
    /** The least a job waits on the broker for a breaker. */
    static final Duration FLOOR = Duration.ofMillis(500);

    /** One provider instance, its breaker and its rate limiter. */
    public record Guarded(ProviderRegistry.Entry entry, CircuitBreaker breaker, AimdRateLimiter rateLimiter) {
        public String name() {
            return entry.name();
        }

        public MailProvider provider() {
            return entry.provider();
        }
    }

    /** What the API, JMX and the console show of one provider. */
    public record View(String name, String kind, String state, Instant since, String lastFailure,
                       Instant lastFailureAt, double rateLimitPerSecond) {
    }

    /** Where a delivery goes now. */
    public sealed interface Routed {
    }

    /** To this provider; {@code probe} when the call is its half-open breaker's probe. */
    public record Choice(Guarded guarded, boolean probe) implements Routed {
    }

    /** Nowhere now: the job waits on the broker for {@code delay}, no retry used. */
    public record Waiting(Duration delay, String why) implements Routed {
    }

    @Inject
    ProviderRegistry registry;
    @Inject
    AimdRateLimiter activeRateLimiter;
    @Inject
    MailProvider active;
    @Inject
    Config config;
    @Inject
    Clock clock;
    @Inject
    dev.mailroom.recoverability.FailureClassifier classifier;
    @Inject
    Event<BreakerStateChanged> changes;
    @Inject
    @Meters
    MeterRegistry meters;
    /**
     * A job that waits for a breaker comes back at a random point up to this long after the breaker
     * could let a call through: a backlog of thousands does not churn through the broker every delay,
     * and it returns spread out, not in one wave.
     */
    @Inject
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "mailroom.breaker.wait-spread", defaultValue = "30s")
    Duration waitSpread;

    private final Map<String, Guarded> byName = new LinkedHashMap<>();

    @PostConstruct
    void build() {
        Instant now = clock.instant();
        for (ProviderRegistry.Entry e : registry.entries()) {
            AimdRateLimiter limiter = e.name().equals(active.name()) ? activeRateLimiter
                    : new AimdRateLimiter(AimdRateLimiter.Settings.forProvider(e.name(),
                    key -> config.getOptionalValue(key, String.class)));
            CircuitBreaker breaker = new CircuitBreaker(CircuitBreaker.Settings.forProvider(e.name(),
                    key -> config.getOptionalValue(key, String.class)), now);
            Guarded g = new Guarded(e, breaker, limiter);
            byName.put(e.name(), g);
            // registry.gauge(...), not Gauge.builder(...).register(...): WildFly 39's per-deployment registry
            // forwards only the former to the registry Prometheus reads (see DeadLetterMetrics)
            for (CircuitBreaker.State s : CircuitBreaker.State.values()) {
                meters.gauge("mailroom.provider.breaker", Tags.of("provider", e.name(), "state", s.wireName()), breaker,
                        b -> {
                            synchronized (b) {
                                return b.state() == s ? 1 : 0;
                            }
                        });
            }
            meters.gauge("mailroom.provider.rate.limit", Tags.of("provider", e.name()), limiter, AimdRateLimiter::rate);
        }
    }

    /**
     * Every provider's breaker and rate limit are built when this bean is: at deployment; and each provider's
     * mapping table and profile must exist, or its answers could not be classified.
     */
    @Override
    public void checkSettings() {
        for (Guarded g : byName.values()) {
            MailProvider p = g.provider();
            classifier.requireTable(p.mappingTable(), p.mappingProfile());
        }
    }

    /**
     * Where a delivery of {@code queue} goes now: a provider (a probe takes the half-open breaker's one
     * slot), or a wait on the broker.
     *
     * @param refused providers this job failed over from
     */
    public Routed route(String queue, Set<String> refused) {
        Instant now = clock.instant();
        List<Guarded> chain = chain(queue);
        List<ProviderRouting.Candidate> candidates = new ArrayList<>();
        for (Guarded g : chain) {
            Optional<CircuitBreaker.Transition> t;
            synchronized (g.breaker()) {
                t = g.breaker().advance(now);
                candidates.add(new ProviderRouting.Candidate(g.name(), g.breaker().wouldPermit(now),
                        g.breaker().nextChance(now)));
            }
            t.ifPresent(tr -> announce(g, tr));
        }
        ProviderRouting.Route route = ProviderRouting.choose(candidates, refused, now, FLOOR,
                waitSpread, ThreadLocalRandom.current());
        if (route instanceof ProviderRouting.Route.Call call) {
            Guarded g = byName.get(call.provider());
            CircuitBreaker.Permit permit;
            synchronized (g.breaker()) {
                permit = g.breaker().acquire(now);
            }
            if (permit == CircuitBreaker.Permit.DENIED) {
                // another consumer took the probe slot between the look and the take
                return new Waiting(g.breaker().settings().delay().plusMillis(
                        ThreadLocalRandom.current().nextLong(waitSpread.toMillis() + 1)), "breaker of " + g.name()
                        + " half-open, its probe is under way");
            }
            return new Choice(g, permit == CircuitBreaker.Permit.PROBE);
        }
        ProviderRouting.Route.Wait wait = (ProviderRouting.Route.Wait) route;
        return new Waiting(wait.delay(), wait.why());
    }

    /**
     * Counts one call's outcome on its provider's breaker.
     *
     * @return whether the breaker is open now
     */
    public boolean record(Guarded g, ProviderResponse.Status status, FailureClass failureClass, String description) {
        boolean failed = status != ProviderResponse.Status.ACCEPTED
                && ProviderRouting.countsAgainstBreaker(status, failureClass);
        Instant now = clock.instant();
        Optional<CircuitBreaker.Transition> t;
        boolean open;
        synchronized (g.breaker()) {
            t = g.breaker().record(now, failed, description);
            open = g.breaker().state() == CircuitBreaker.State.OPEN;
        }
        t.ifPresent(tr -> {
            if (tr.to() == CircuitBreaker.State.OPEN && tr.from() == CircuitBreaker.State.CLOSED) {
                // the backlog drains at the AIMD rate once it closes: start it from half the rate, not the top
                g.rateLimiter().onThrottle();
            }
            announce(g, tr);
        });
        return open;
    }

    /** How long a job waits for {@code g}'s breaker to let a probe through, with a jittered spread. */
    public Duration waitFor(Guarded g) {
        Instant now = clock.instant();
        Instant next;
        synchronized (g.breaker()) {
            next = g.breaker().nextChance(now);
        }
        Duration until = Duration.between(now, next);
        long spread = waitSpread.toMillis();
        return (until.compareTo(FLOOR) < 0 ? FLOOR : until).plusMillis(ThreadLocalRandom.current().nextLong(spread + 1));
    }

    /** The next provider of {@code queue}'s chain after {@code current} that the job may fail over to now. */
    public Optional<String> nextAfter(String queue, String current, Set<String> refused) {
        Instant now = clock.instant();
        List<Guarded> chain = chain(queue);
        boolean after = false;
        for (Guarded g : chain) {
            if (g.name().equals(current)) {
                after = true;
            } else if (after && !refused.contains(g.name())) {
                synchronized (g.breaker()) {
                    if (g.breaker().wouldPermit(now)) {
                        return Optional.of(g.name());
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** Moves every open breaker whose delay has passed to half-open, so the change is announced on time. */
    public void tick() {
        Instant now = clock.instant();
        for (Guarded g : byName.values()) {
            Optional<CircuitBreaker.Transition> t;
            synchronized (g.breaker()) {
                t = g.breaker().advance(now);
            }
            t.ifPresent(tr -> announce(g, tr));
        }
    }

    public List<View> views() {
        Instant now = clock.instant();
        tick();
        List<View> views = new ArrayList<>();
        for (Guarded g : byName.values()) {
            synchronized (g.breaker()) {
                g.breaker().advance(now);
                views.add(new View(g.name(), g.entry().kind(), g.breaker().state().wireName(), g.breaker().since(),
                        g.breaker().lastFailure(), g.breaker().lastFailureAt(), g.rateLimiter().rate()));
            }
        }
        return views;
    }

    /** The names of {@code queue}'s providers, in order. */
    public List<String> chainNames(String queue) {
        return registry.chain(queue);
    }

    List<Guarded> chain(String queue) {
        return registry.chain(queue).stream().map(byName::get).toList();
    }

    private void announce(Guarded g, CircuitBreaker.Transition t) {
        LOG.warning(() -> String.format("provider %s: circuit breaker %s -> %s%s", g.name(), t.from().wireName(),
                t.to().wireName(), t.lastFailure() == null ? "" : " (last failure: " + t.lastFailure() + ")"));
        changes.fire(new BreakerStateChanged(g.name(), t.to().wireName(), t.at(), t.lastFailure()));
    }
}
