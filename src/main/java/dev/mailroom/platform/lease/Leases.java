package dev.mailroom.platform.lease;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * This node's view of the leases: a job asks {@link #takeTurn} at each of its ticks and does its work only
 * when the answer is yes. A lease this node holds is renewed by {@link LeaseKeeper} every heartbeat; this
 * node trusts its own hold only until {@code ttl} minus a fifth after the claim began (by the JVM's
 * monotonic clock), so it stops before the database lets another node take over.
 *
 * <pre>
 * mailroom.node.id          = mailroom-1  (MAILROOM_NODE_ID, also the transaction manager's node identifier)
 * mailroom.lease.ttl        = PT30S       a dead holder's work moves to another node within this
 * mailroom.lease.heartbeat  = PT10S       how often held leases are renewed (well below the ttl)
 * </pre>
 */
@ApplicationScoped
public class Leases {

    /** Prefix of the lease each node holds while it runs: its liveness, as the other nodes see it. */
    public static final String NODE_PREFIX = "node:";
    private static final Logger LOG = Logger.getLogger(Leases.class.getName());

    @Inject
    @ConfigProperty(name = "mailroom.node.id", defaultValue = "mailroom-1")
    String node;
    @Inject
    @ConfigProperty(name = "mailroom.lease.ttl", defaultValue = "PT30S")
    Duration ttl;
    @Inject
    LeaseStore store;

    /** Leases this node has asked for, with the monotonic time until which it trusts its hold (0: not held). */
    private final Map<String, AtomicLong> heldUntilNanos = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> turns = new ConcurrentHashMap<>();
    /** The token of each lease this node holds, as its last claim left it ({@link LeaseRules#fence}). */
    private final Map<String, Long> tokens = new ConcurrentHashMap<>();

    /** A lease as the API shows it: the row, and what this node did with it. */
    public record View(String name, String holder, Instant expiresAt, long version, boolean heldHere, long turnsHere) {
    }

    /** Every lease row and the database's time at which they were read. */
    public record Rows(Instant now, List<LeaseRules.Row> rows) {
    }

    public String node() {
        return node;
    }

    public Duration ttl() {
        return ttl;
    }

    /**
     * Whether this node holds {@code name} now, so its job may run this tick (counted, see {@link #view}).
     * A lease not held is claimed on the spot: a free or expired one is taken at the first tick that asks.
     */
    public boolean takeTurn(String name) {
        if (!heldHere(name)) {
            claim(name);
        }
        if (heldHere(name)) {
            turns.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
            return true;
        }
        return false;
    }

    /** Whether this node holds {@code name} by its own, conservative, reckoning. */
    public boolean heldHere(String name) {
        AtomicLong until = heldUntilNanos.get(name);
        return until != null && until.get() - System.nanoTime() > 0;
    }

    /**
     * For a write guarded by {@code name}, in the writer's transaction: whether this node still holds the lease as it
     * took it ({@link LeaseRules#fence}); the lease row stays locked until that transaction ends, so no other node
     * takes it over before the write commits.
     */
    public boolean fenced(String name) {
        return allowed(name, store.fence(name, node, tokens.getOrDefault(name, 0L)));
    }

    /** {@link #fenced} in a transaction of its own: before work that is not one transaction (a delivery to a sink). */
    public boolean stillHeld(String name) {
        return allowed(name, store.check(name, node, tokens.getOrDefault(name, 0L)));
    }

    private boolean allowed(String name, Fence fence) {
        if (fence instanceof Fence.Lost lost) {
            AtomicLong until = heldUntilNanos.get(name);
            if (until != null) {
                until.set(System.nanoTime()); // not held here any more: the next tick asks the table again
            }
            LOG.warning(() -> "lease " + name + " lost by " + node + ": " + lost.why() + "; its write is not made");
            return false;
        }
        return true;
    }

    /** Renews (or tries to take) every lease this node has asked for, and its own liveness lease. */
    public void heartbeat() {
        claim(NODE_PREFIX + node);
        for (String name : Set.copyOf(heldUntilNanos.keySet())) {
            if (!name.equals(NODE_PREFIX + node)) {
                claim(name);
            }
        }
    }

    /** Gives up every lease this node holds (a clean shutdown): the others need not wait for expiry. */
    public void releaseAll() {
        for (String name : Set.copyOf(heldUntilNanos.keySet())) {
            heldUntilNanos.get(name).set(System.nanoTime());
            try {
                if (store.release(name, node)) {
                    LOG.info(() -> "lease " + name + " released by " + node);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, e, () -> "could not release lease " + name + "; it expires by itself");
            }
        }
    }

    /** Whether {@code otherNode} is running, by its liveness lease (a node never seen counts as not running). */
    public boolean alive(String otherNode) {
        Rows rows = store.all();
        return rows.rows().stream().anyMatch(r -> r.name().equals(NODE_PREFIX + otherNode)
                && otherNode.equals(r.holder()) && r.expiresAt().isAfter(rows.now()));
    }

    /** Every lease row, with this node's part. */
    public List<View> view() {
        List<View> out = new ArrayList<>();
        for (LeaseRules.Row r : store.all().rows()) {
            AtomicLong t = turns.get(r.name());
            out.add(new View(r.name(), r.holder(), r.expiresAt(), r.version(), heldHere(r.name()),
                    t == null ? 0 : t.get()));
        }
        return out;
    }

    private void claim(String name) {
        AtomicLong until = heldUntilNanos.computeIfAbsent(name, n -> new AtomicLong(System.nanoTime()));
        synchronized (until) { // a tick and the heartbeat claiming at once would make one lose to the other's version
            claim(name, until);
        }
    }

    private void claim(String name, AtomicLong until) {
        boolean before = heldHere(name);
        long start = System.nanoTime();
        Duration ttl = ttl();
        LeaseTable.Claim claim;
        try {
            claim = store.claim(name, node, ttl);
        } catch (RuntimeException e) {
            // the database does not answer: this node cannot know it still holds the lease once it runs out
            LOG.log(Level.WARNING, e, () -> "could not claim lease " + name + "; held here until it runs out at most");
            return;
        }
        if (claim.held()) {
            tokens.put(name, claim.token());
            until.set(start + ttl.toNanos() - ttl.toNanos() / 5);
        } else {
            until.set(start);
        }
        if (claim.held() != before || claim.action() instanceof LeaseAction.TakeOver) {
            Level level = claim.action() instanceof LeaseAction.TakeOver && claim.held() ? Level.WARNING : Level.INFO;
            LOG.log(level, () -> "lease " + name + ": " + node + " " + claim.action().describe()
                    + (claim.held() ? ", held until " + claim.expiresAt() : claim.action() instanceof LeaseAction.KeepAway
                    ? "" : " but another node was quicker"));
        }
    }
}
