package dev.mailroom.platform.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.ComponentDatabase;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaseTable} on H2 (PostgreSQL mode, the real migrations), each "node" its own database session:
 * two nodes racing for one lease end with exactly one holder, a live lease keeps the others away, an expired
 * one is taken over, a released one is taken at once. {@link LeaseTablePostgresComponentTest} runs it again
 * on PostgreSQL.
 */
class LeaseTableComponentTest {

    private static final Duration TTL = Duration.ofSeconds(30);
    static ComponentDatabase db;
    /** How many sessions wait on another one's lock, in this database's own words. */
    static String blockedSessions;
    private static int sequence;

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(List.of());
        blockedSessions = "select count(*) from information_schema.sessions where blocker_id is not null";
    }

    @AfterAll
    static void close() {
        db.close();
    }

    private static String lease() {
        return "test-lease-" + (++sequence);
    }

    private static LeaseTable.Claim claim(String name, String node, Duration ttl) {
        return db.inTransaction(em -> new LeaseTable(em).claim(name, node, ttl));
    }

    private static LeaseRules.Row row(String name) {
        return db.inTransaction(em -> new LeaseTable(em).read(name));
    }

    @Test
    void theFirstNodeTakesAFreeLeaseAndTheOtherKeepsAway() {
        String name = lease();
        LeaseTable.Claim a = claim(name, "node-a", TTL);
        LeaseTable.Claim b = claim(name, "node-b", TTL);

        assertThat(a.action()).isInstanceOf(LeaseAction.Take.class);
        assertThat(a.held()).isTrue();
        assertThat(b.action()).isInstanceOf(LeaseAction.KeepAway.class);
        assertThat(b.held()).isFalse();
        assertThat(row(name).holder()).isEqualTo("node-a");

        LeaseTable.Claim renewed = claim(name, "node-a", TTL);
        assertThat(renewed.action()).isInstanceOf(LeaseAction.Renew.class);
        assertThat(renewed.held()).isTrue();
        assertThat(renewed.expiresAt()).isAfterOrEqualTo(a.expiresAt());
        assertThat(row(name).version()).isEqualTo(renewed.version());
    }

    /**
     * A take gives the holder its token, a renewal keeps it, a take-over gives the new holder another: the node that
     * lost the lease fails the fence with its old token, the new holder passes it.
     */
    @Test
    void aTakeOverChangesTheTokenSoTheNodeThatLostTheLeaseFailsTheFence() {
        String name = lease();
        LeaseTable.Claim taken = claim(name, "node-a", Duration.ofSeconds(-1)); // held, and expired at once
        LeaseTable.Claim renewed = claim(name, "node-a", Duration.ofSeconds(-1));
        assertThat(renewed.token()).isEqualTo(taken.token()).isPositive();
        assertThat(fence(name, "node-a", taken.token())).isInstanceOf(Fence.Holds.class);

        LeaseTable.Claim over = claim(name, "node-b", TTL);
        assertThat(over.action()).isInstanceOf(LeaseAction.TakeOver.class);
        assertThat(over.token()).isNotEqualTo(taken.token());
        assertThat(row(name).token()).isEqualTo(over.token());
        assertThat(fence(name, "node-a", taken.token())).isInstanceOf(Fence.Lost.class);
        assertThat(fence(name, "node-b", over.token())).isInstanceOf(Fence.Holds.class);
    }

    /**
     * The fence locks the row until the guarded write commits: a take-over that comes meanwhile waits, and takes the
     * lease only after that write.
     */
    @Test
    void aTakeOverWaitsForTheWriteTheFenceLetThrough() throws Exception {
        String name = lease();
        LeaseTable.Claim a = claim(name, "node-a", Duration.ofSeconds(-1));
        EntityManager sessionA = db.session();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            sessionA.getTransaction().begin();
            assertThat(new LeaseTable(sessionA).fence(name, "node-a", a.token())).isInstanceOf(Fence.Holds.class);
            Future<LeaseTable.Claim> b = other.submit(() -> claim(name, "node-b", TTL));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> blocked() > 0);
            assertThat(b.isDone()).isFalse();
            sessionA.getTransaction().commit();

            assertThat(b.get(20, TimeUnit.SECONDS).held()).isTrue();
            assertThat(fence(name, "node-a", a.token())).isInstanceOf(Fence.Lost.class);
        } finally {
            if (sessionA.getTransaction().isActive()) {
                sessionA.getTransaction().rollback();
            }
            sessionA.close();
            other.shutdownNow();
        }
    }

    private static Fence fence(String name, String node, long token) {
        return db.inTransaction(em -> new LeaseTable(em).fence(name, node, token));
    }

    /**
     * Both nodes read the free row and decide to take it; A's update holds the row, B's waits on it. When A
     * commits, B's update finds the version changed and changes nothing: one holder, and B knows it lost.
     */
    @Test
    void twoNodesTakingOneFreeLeaseInTwoSessions_exactlyOneHoldsIt() throws Exception {
        String name = lease();
        db.run(em -> {
            new LeaseTable(em).claim(name, "earlier-node", TTL); // the row exists and is free, as after a release
            new LeaseTable(em).release(name, "earlier-node");
        });
        EntityManager sessionA = db.session();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            sessionA.getTransaction().begin();
            LeaseTable.Claim a = new LeaseTable(sessionA).claim(name, "node-a", TTL); // row updated, uncommitted
            assertThat(a.held()).isTrue();
            Future<LeaseTable.Claim> b = other.submit(() -> claim(name, "node-b", TTL));
            // B has read the committed (free) row and now waits on A's row lock
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> blocked() > 0);
            assertThat(b.isDone()).isFalse();
            sessionA.getTransaction().commit();

            LeaseTable.Claim lost = b.get(20, TimeUnit.SECONDS);
            assertThat(lost.action()).as("B decided on the row it read").isInstanceOf(LeaseAction.Take.class);
            assertThat(lost.held()).as("but A's update came first").isFalse();
            assertThat(row(name).holder()).isEqualTo("node-a");
        } finally {
            if (sessionA.getTransaction().isActive()) {
                sessionA.getTransaction().rollback();
            }
            sessionA.close();
            other.shutdownNow();
        }
    }

    /** Eight nodes at once, each its own session and thread, on a lease nobody holds: exactly one holds it. */
    @Test
    void eightNodesRacingForOneLease_exactlyOneWins() throws Exception {
        String name = lease();
        int nodes = 8;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            CountDownLatch start = new CountDownLatch(1);
            java.util.Map<String, CompletableFuture<LeaseTable.Claim>> claims = new java.util.TreeMap<>();
            for (int i = 0; i < nodes; i++) {
                String node = "node-" + i;
                claims.put(node, CompletableFuture.supplyAsync(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return claim(name, node, TTL);
                }, pool));
            }
            start.countDown();
            List<String> holders = new ArrayList<>();
            for (var c : claims.entrySet()) {
                if (c.getValue().get(30, TimeUnit.SECONDS).held()) {
                    holders.add(c.getKey());
                }
            }
            assertThat(holders).hasSize(1);
            assertThat(row(name).holder()).isEqualTo(holders.get(0));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anExpiredLeaseIsTakenOverAndItsFormerHolderThenKeepsAway() {
        String name = lease();
        Duration shortTtl = Duration.ofMillis(800);
        assertThat(claim(name, "node-a", shortTtl).held()).isTrue();
        assertThat(claim(name, "node-b", shortTtl).action()).isInstanceOf(LeaseAction.KeepAway.class);

        // node-a dies: nothing renews its lease; by the database's time it runs out
        LeaseTable.Claim takeover = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> claim(name, "node-b", TTL), LeaseTable.Claim::held);
        assertThat(takeover.action()).isInstanceOfSatisfying(LeaseAction.TakeOver.class,
                t -> assertThat(t.previousHolder()).isEqualTo("node-a"));

        LeaseTable.Claim late = claim(name, "node-a", TTL);
        assertThat(late.action()).isInstanceOf(LeaseAction.KeepAway.class);
        assertThat(late.held()).isFalse();
        assertThat(row(name).holder()).isEqualTo("node-b");
    }

    @Test
    void aReleasedLeaseIsTakenAtOnce() {
        String name = lease();
        assertThat(claim(name, "node-a", TTL).held()).isTrue();
        assertThat((boolean) db.inTransaction(em -> new LeaseTable(em).release(name, "node-b"))).as("not b's to release").isFalse();
        assertThat((boolean) db.inTransaction(em -> new LeaseTable(em).release(name, "node-a"))).isTrue();

        LeaseTable.Claim b = claim(name, "node-b", TTL);
        assertThat(b.action()).isInstanceOf(LeaseAction.Take.class);
        assertThat(b.held()).isTrue();
    }

    private static long blocked() {
        return db.inTransaction(em -> ((Number) em.createNativeQuery(blockedSessions).getSingleResult()).longValue());
    }
}
