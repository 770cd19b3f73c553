package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.Begin;
import dev.mailroom.job.HeldSend;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JobAttempt;
import dev.mailroom.job.JobEvent;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.JobState;
import dev.mailroom.job.Ledgers;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.ops.testing.MovableClock;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.recoverability.ProviderTraits;
import dev.mailroom.suppression.Suppression;
import dev.mailroom.suppression.SuppressionLists;
import dev.mailroom.testsupport.ComponentDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reconciliation's batches on a real database (H2 in PostgreSQL mode, the real migrations, the real
 * {@link JobLedger} and suppression list): webhook calls for jobs with two recipients, in random order, with
 * duplicates, some before their job exists and some while it is still sending, taken in random batches both
 * ways the job takes them (announced ids, {@link ReconcileBatch#these}; the sweep, {@link ReconcileBatch#next}).
 * Every job ends in the state its events imply, each recipient in its worst state, every stored call once on
 * its job's timeline, and every hard-bounced or complaining recipient on the list. And a batch costs a fixed
 * number of queries plus the timeline's inserts, not a few queries per event (what kept it at ~200 calls/s).
 */
class ReconcileBatchComponentTest {

    private static final ProviderTraits SMTP = new ProviderTraits("smtp", false);
    private static final MovableClock CLOCK = new MovableClock(Clock.fixed(Instant.parse("2030-01-01T10:00:00Z"), ZoneOffset.UTC));
    private static final AtomicInteger JMS = new AtomicInteger();
    static ComponentDatabase db;

    enum State { deferred, delivered, bounced, complained }

    static final List<Class<?>> ENTITIES = List.of(MailJob.class, JobAttempt.class, JobEvent.class, HeldSend.class,
            JobRecipient.class, ProviderEvent.class, Suppression.class);

    @BeforeAll
    static void database() {
        db = ComponentDatabase.h2(ENTITIES);
    }

    @AfterAll
    static void close() {
        db.close();
    }

    private static ReconcileBatch batch(EntityManager em) {
        ReconcileBatch b = new ReconcileBatch();
        b.em = em;
        b.ledger = Ledgers.on(em, CLOCK);
        b.meters = new SimpleMeterRegistry();
        b.suppressions = SuppressionLists.on(em, CLOCK, b.meters);
        b.clock = CLOCK;
        return b;
    }

    /** What the sweep does: the ids of received calls after {@code afterId}, then one batch of them. */
    private static ReconcileBatch.Progress sweep(EntityManager em, long afterId, int max) {
        ReconcileBatch b = batch(em);
        return b.these(b.received(afterId, max));
    }

    private static Incoming delivery(String messageId, String tenant, int n) {
        String body = """
                {"schema_version": 1, "message_id": "%s", "tenant": "%s", "from": "noreply@example.com",
                 "to": ["a%d@batch.example"], "cc": ["B%d@Batch.Example"], "subject": "s", "text": "t"}"""
                .formatted(messageId, tenant, n, n);
        return new Incoming("mail.send", "ID:c-" + JMS.incrementAndGet(), false, 1, body.getBytes(StandardCharsets.UTF_8),
                true, null, null, null, null, null);
    }

    /** The job begun (state {@code sending}, as while its provider call runs): its attempt. */
    private static Begin.Proceed begin(String messageId, String tenant, int n) {
        Incoming in = delivery(messageId, tenant, n);
        return db.inTransaction(em -> (Begin.Proceed) Ledgers.on(em, CLOCK).begin(in,
                ((ParseResult.Parsed) new JobParser().parse(in.body())).job(), SMTP, true));
    }

    private static void sent(Begin.Proceed p) {
        sent(p, null);
    }

    private static void sent(Begin.Proceed p, String providerMessageId) {
        db.run(em -> Ledgers.on(em, CLOCK).recordSent(p, ProviderResponse.accepted("smtp", "250", "ok", providerMessageId)));
    }

    private static long store(String key, String body) {
        return store("generic", List.of(List.of(key, body)));
    }

    private static long store(List<List<String>> calls) {
        return store("generic", calls);
    }

    /** Stores calls (key, body) of {@code profile} as the inbox does, in one transaction; the last one's inbox id. */
    private static long store(String profile, List<List<String>> calls) {
        return db.inTransaction(em -> {
            long last = 0;
            for (List<String> c : calls) {
                ProviderEvent e = new ProviderEvent(profile, c.get(0), CLOCK.instant(), c.get(1).getBytes(StandardCharsets.UTF_8));
                em.persist(e);
                last = e.getId();
            }
            return last;
        });
    }

    private static String event(String type, String messageId, String recipient, int i) {
        return "{\"event_type\":\"" + type + "\",\"message_id\":\"" + messageId + "\""
                + (recipient == null ? "" : ",\"recipient\":\"" + recipient + "\"")
                + ",\"description\":\"event " + i + "\",\"mta_response\":\"" + type + " " + i + "\"}";
    }

    private static List<Long> received(String keyPrefix) {
        return db.inTransaction(em -> em.createQuery("select e.id from ProviderEvent e where e.status = 'received'"
                + " and e.dedupeKey like :k order by e.id", Long.class).setParameter("k", keyPrefix + "%").getResultList());
    }

    static State stateOf(String type) {
        return switch (type) {
            case "deferred" -> State.deferred;
            case "delivered" -> State.delivered;
            case "bounced", "failed" -> State.bounced;
            case "complained" -> State.complained;
            default -> null;
        };
    }

    @Test
    void randomEventsInRandomBatchesEndEveryJobAndRecipientInTheStateTheyImply() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String prefix = "rb" + seed + "-";
        String tenant = "t" + seed;
        int jobs = 120;
        int unique = 700;

        // a fifth of the jobs is not there when the calls arrive, a tenth is still sending
        List<Integer> order = new ArrayList<>();
        for (int j = 0; j < jobs; j++) {
            order.add(j);
        }
        Collections.shuffle(order, random);
        Set<Integer> late = new HashSet<>(order.subList(0, jobs / 5));
        Set<Integer> sending = new HashSet<>(order.subList(jobs / 5, jobs / 5 + jobs / 10));
        Map<Integer, Begin.Proceed> begun = new HashMap<>();
        for (int j = 0; j < jobs; j++) {
            if (!late.contains(j)) {
                Begin.Proceed p = begin(prefix + j, tenant, j);
                begun.put(j, p);
                if (!sending.contains(j)) {
                    sent(p);
                }
            }
        }

        State[][] worst = new State[jobs][2];
        int[] stored = new int[jobs];
        Set<String> suppressed = new TreeSet<>();
        List<String[]> calls = new ArrayList<>();
        for (int i = 0; i < unique; i++) {
            int job = i < jobs ? i : random.nextInt(jobs);
            String type = EventMix.pick(random);
            int who = random.nextInt(20);
            String recipient = who == 0 ? null : (who % 2 == 0 ? "a" : "b") + job + "@batch.example";
            calls.add(new String[] {prefix + "u" + i, event(type, prefix + job, recipient == null ? null : recipient.toUpperCase(), i),
                    String.valueOf(job)});
            stored[job]++;
            for (int r = 0; r < 2; r++) {
                State s = stateOf(type);
                boolean concerns = recipient == null || recipient.startsWith(r == 0 ? "a" : "b");
                if (s != null && concerns && (worst[job][r] == null || s.compareTo(worst[job][r]) > 0)) {
                    worst[job][r] = s;
                }
            }
            if (recipient != null && (type.equals("bounced") || type.equals("complained"))) {
                suppressed.add(recipient);
            }
        }
        // a provider sending the same event again under a new delivery id: applied again, changes nothing more
        for (int i = 0; i < unique / 10; i++) {
            String[] original = calls.get(random.nextInt(unique));
            calls.add(new String[] {prefix + "d" + i, original[1], original[2]});
            stored[Integer.parseInt(original[2])]++;
        }
        Collections.shuffle(calls, random);
        store(calls.stream().map(c -> List.of(c[0], c[1])).toList());

        // random batches both ways; the late jobs arrive and the sending ones finish after a few of them
        int rounds = 0;
        for (List<Long> left = received(prefix); !left.isEmpty() && rounds < 200; left = received(prefix), rounds++) {
            if (rounds == 3) {
                late.forEach(j -> begun.put(j, begin(prefix + j, tenant, j)));
                late.forEach(j -> sent(begun.get(j)));
                sending.forEach(j -> sent(begun.get(j)));
            }
            if (random.nextBoolean()) {
                List<Long> some = new ArrayList<>(left);
                Collections.shuffle(some, random);
                List<Long> announced = some.subList(0, 1 + random.nextInt(Math.min(some.size(), 150)));
                db.run(em -> batch(em).these(announced));
            } else {
                long after = left.get(random.nextInt(left.size())) - 1;
                int max = 1 + random.nextInt(200);
                db.run(em -> sweep(em, after, max));
            }
        }
        assertThat(received(prefix)).as("calls left received after %d rounds (seed %d)", rounds, seed).isEmpty();

        Map<String, Long> statuses = db.inTransaction(em -> {
            Map<String, Long> m = new TreeMap<>();
            em.createQuery("select e.status, count(e) from ProviderEvent e where e.dedupeKey like :k group by e.status", Object[].class)
                    .setParameter("k", prefix + "%").getResultList().forEach(r -> m.put((String) r[0], (Long) r[1]));
            return m;
        });
        assertThat(statuses).as("seed %d", seed).isEqualTo(Map.of("applied", (long) calls.size()));

        List<String> problems = new ArrayList<>();
        db.run(em -> {
            for (int j = 0; j < jobs; j++) {
                MailJob job = em.createQuery("select j from MailJob j where j.messageId = :m", MailJob.class)
                        .setParameter("m", prefix + j).getSingleResult();
                State w = worst[j][0] == null ? worst[j][1]
                        : worst[j][1] == null || worst[j][0].compareTo(worst[j][1]) >= 0 ? worst[j][0] : worst[j][1];
                String expected = w == null || w == State.deferred ? "sent_to_provider" : w.name();
                if (!job.getState().name().equals(expected)) {
                    problems.add("job " + j + " is " + job.getState() + ", its events imply " + expected);
                }
                List<JobRecipient> rs = em.createQuery("select r from JobRecipient r where r.jobId = :j order by r.position",
                        JobRecipient.class).setParameter("j", job.getId()).getResultList();
                for (int r = 0; r < 2; r++) {
                    String want = worst[j][r] == null ? null : worst[j][r].name();
                    if (!java.util.Objects.equals(rs.get(r).getDeliveryState(), want)) {
                        problems.add("job " + j + " recipient " + rs.get(r).getAddress() + " is " + rs.get(r).getDeliveryState()
                                + ", its events imply " + want);
                    }
                }
                long onTimeline = em.createQuery("select count(e) from JobEvent e where e.jobId = :j and e.type like 'delivery%'"
                        + " and e.type <> 'delivery_state'", Long.class).setParameter("j", job.getId()).getSingleResult();
                if (onTimeline != stored[j]) {
                    problems.add("job " + j + " has " + onTimeline + " delivery events on its timeline, " + stored[j] + " stored");
                }
            }
        });
        assertThat(problems).as("seed %d", seed).isEmpty();
        List<String> listed = db.inTransaction(em -> em.createQuery("select s.address from Suppression s where s.tenant = :t"
                + " and s.liftedAt is null and s.causeEventId is not null order by s.address", String.class)
                .setParameter("t", tenant).getResultList());
        assertThat(listed).as("seed %d", seed).containsExactlyElementsOf(suppressed);
    }

    @Test
    void aCallWaitsWholeWhileOneOfItsJobsIsStillSendingAndIsThenAppliedOnce() {
        String prefix = "wait" + System.nanoTime() + "-";
        Begin.Proceed done = begin(prefix + "0", "t", 0);
        sent(done);
        Begin.Proceed stillSending = begin(prefix + "1", "t", 1);
        long id = store(prefix + "k", "{\"events\":[" + event("delivered", prefix + "0", null, 1) + ","
                + event("delivered", prefix + "1", null, 2) + "]}");

        ReconcileBatch.Progress p = db.inTransaction(em -> batch(em).these(List.of(id)));
        assertThat(p.waiting()).isEqualTo(1);
        assertThat(received(prefix)).containsExactly(id);
        assertThat(jobState(done.jobId())).isEqualTo(JobState.sent_to_provider);

        sent(stillSending);
        db.run(em -> sweep(em, id - 1, 10));
        db.run(em -> batch(em).these(List.of(id))); // announced again: already applied, nothing happens
        assertThat(received(prefix)).isEmpty();
        assertThat(jobState(done.jobId())).isEqualTo(JobState.delivered);
        assertThat(jobState(stillSending.jobId())).isEqualTo(JobState.delivered);
        long applied = db.<Long>inTransaction(em -> em.createQuery("select count(e) from JobEvent e where e.jobId in :j"
                + " and e.type = 'delivery_delivered'", Long.class).setParameter("j", List.of(done.jobId(), stillSending.jobId()))
                .getSingleResult());
        assertThat(applied).isEqualTo(2L);
    }

    @Test
    void resendsSuppressionAddedPutsTheAddressOnTheListOfTheJobsTenantWithTheEventAsItsCause() {
        String prefix = "rs" + System.nanoTime() + "-";
        String tenant = "t-" + prefix;
        Begin.Proceed p = begin(prefix + "0", tenant, 7);
        sent(p, prefix + "email-id");
        long id = store("resend", List.of(List.of(prefix + "svix", """
                {"type":"suppression.added","created_at":"2030-01-01T09:59:00Z","data":{"id":"sup-1","email":"A7@Batch.Example",
                 "origin":"bounce","source_id":"%semail-id","created_at":"2030-01-01T09:58:59Z"}}""".formatted(prefix))));

        db.run(em -> batch(em).these(List.of(id)));

        assertThat(received(prefix)).isEmpty();
        List<Suppression> listed = db.inTransaction(em -> em.createQuery("select s from Suppression s where s.tenant = :t",
                Suppression.class).setParameter("t", tenant).getResultList());
        assertThat(listed).singleElement().satisfies(s -> {
            assertThat(s.getAddress()).isEqualTo("a7@batch.example");
            assertThat(s.getReason()).isEqualTo("hard_bounce");
            assertThat(s.getCauseEventId()).isEqualTo(id);
            assertThat(s.getCauseJobId()).isEqualTo(p.jobId());
        });
        assertThat(jobState(p.jobId())).isEqualTo(JobState.bounced);
    }

    @Test
    void aBatchCostsAFixedNumberOfQueriesPlusTheTimelinesInserts() {
        String prefix = "cost" + System.nanoTime() + "-";
        int jobs = 60;
        for (int j = 0; j < jobs; j++) {
            sent(begin(prefix + j, "t", j));
        }
        Random random = new Random(7);
        int events = 300;
        int suppressing = 0;
        List<List<String>> calls = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            String type = EventMix.pick(random);
            suppressing += type.equals("bounced") || type.equals("complained") ? 1 : 0;
            int job = random.nextInt(jobs);
            calls.add(List.of(prefix + "k" + i, event(type, prefix + job, "a" + job + "@batch.example", i)));
        }
        store(calls);
        long before = db.statementsPrepared();
        ReconcileBatch.Progress p = db.inTransaction(em -> sweep(em, received(prefix).get(0) - 1, 500));
        long statements = db.statementsPrepared() - before;
        assertThat(p.read()).isEqualTo(events);
        assertThat(received(prefix)).isEmpty();
        // the timeline (an event's row and at most one state change's) in multi-row inserts of 100; per suppressing
        // event: the list's insert and read-back; the rest (ids, read, match, lock, recipients, the batched updates) a
        // fixed handful
        assertThat(statements).as("statements for %d events (%d suppressing)", events, suppressing)
                .isLessThanOrEqualTo((2L * events + 99) / 100 + 2L * suppressing + 40);
    }

    private static JobState jobState(long jobId) {
        return db.inTransaction(em -> em.find(MailJob.class, jobId).getState());
    }
}
