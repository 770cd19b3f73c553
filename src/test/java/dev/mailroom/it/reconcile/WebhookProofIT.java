package dev.mailroom.it.reconcile;

import dev.mailroom.it.support.Prometheus;
import dev.mailroom.it.support.Webhooks;
import dev.mailroom.it.support.Jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.reconcile.EventMix;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The reconciliation proof: 10,000 signed webhook calls for 2,000 jobs (two recipients each),
 * posted by several threads in random order, 10 % of them duplicates (half exact replays of a call, half the
 * same event under a new delivery id, as a provider re-sending it) and 5 % before their job exists. Afterwards
 * every job is in the state its events imply (counted per state), no event is lost (each stored one is on its
 * job's timeline exactly once), none is unmatched, and the reconciliation lag (received → applied) has a p99
 * under 5 s. The bounce and complaint rates the events imply page for the run's tenant.
 *
 * <p>Sizes: {@code -Dmailroom.it.proof-jobs} (2000) and {@code -Dmailroom.it.proof-events} (10000); {@code bench/webhooks.sh}
 * runs this test and prints the events/s and lag figures it logs (lines starting {@code PROOF}).
 */
@Tag("events")
class WebhookProofIT {

    static final int JOBS = Integer.getInteger("mailroom.it.proof-jobs", 2000);
    static final int POSTS = Integer.getInteger("mailroom.it.proof-events", 10000);
    static final int THREADS = 8;

    /** What a job's recipient ends in, as the tests compute it without the server's decision. */
    enum State { deferred, delivered, bounced, complained }

    record Post(String svixId, String body, int job, boolean replay) {
    }

    static State stateOf(String type) {
        return switch (type) {
            case "deferred" -> State.deferred;
            case "delivered" -> State.delivered;
            case "bounced", "failed", "rejected" -> State.bounced;
            case "complained" -> State.complained;
            default -> null;
        };
    }

    static String jobState(State worst) {
        if (worst == null || worst == State.deferred) {
            return "sent_to_provider";
        }
        return worst.name();
    }

    @Test
    void ten_thousand_events_in_random_order_end_every_job_in_the_state_they_imply() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        long seed = Long.getLong("mailroom.it.proof-seed", System.nanoTime());
        Random random = new Random(seed);
        String prefix = Jobs.runPrefix("proof");
        String tenant = "proof-" + UUID.randomUUID().toString().substring(0, 8);
        Instant start = Instant.now();
        System.out.println("PROOF seed=" + seed + " jobs=" + JOBS + " posts=" + POSTS + " prefix=" + prefix);

        // the events: 90 % unique, then 5 % content duplicates (new delivery id) and 5 % exact replays
        int unique = POSTS * 9 / 10;
        List<Post> uniquePosts = new ArrayList<>();
        Map<Integer, List<Post>> byJob = new HashMap<>();
        State[][] worst = new State[JOBS][2];
        int[] stored = new int[JOBS];
        for (int i = 0; i < unique; i++) {
            int job = i < JOBS ? i : random.nextInt(JOBS); // every job has at least one event
            String type = EventMix.pick(random);
            int who = random.nextInt(20);
            String recipient = who == 0 ? null : (who % 2 == 0 ? "a" : "b") + job + "@proof.example";
            String body = "{\"event_type\":\"" + type + "\",\"message_id\":\"" + prefix + job + "\""
                    + (recipient == null ? "" : ",\"recipient\":\"" + recipient.toUpperCase() + "\"")
                    + ",\"description\":\"proof event " + i + "\",\"mta_response\":\"" + type + " " + i + "\"}";
            Post p = new Post("msg_" + prefix + "u" + i, body, job, false);
            uniquePosts.add(p);
            byJob.computeIfAbsent(job, k -> new ArrayList<>()).add(p);
            State s = stateOf(type);
            for (int r = 0; r < 2; r++) {
                boolean concerns = recipient == null || recipient.startsWith(r == 0 ? "a" : "b");
                if (s != null && concerns && (worst[job][r] == null || s.compareTo(worst[job][r]) > 0)) {
                    worst[job][r] = s;
                }
            }
            stored[job]++;
        }
        List<Post> duplicates = new ArrayList<>();
        for (int i = 0; i < POSTS - unique; i++) {
            Post original = uniquePosts.get(random.nextInt(unique));
            if (i % 2 == 0) {
                duplicates.add(new Post(original.svixId(), original.body(), original.job(), true));
            } else {
                duplicates.add(new Post("msg_" + prefix + "d" + i, original.body(), original.job(), false));
                stored[original.job()]++;
            }
        }
        // 5 % of the calls arrive before their job: whole jobs' events, until 5 % of all calls are reached
        List<Integer> jobOrder = new ArrayList<>();
        for (int j = 0; j < JOBS; j++) {
            jobOrder.add(j);
        }
        Collections.shuffle(jobOrder, random);
        Set<Integer> early = new HashSet<>();
        int earlyPosts = 0;
        for (int j : jobOrder) {
            if (earlyPosts >= POSTS / 20) {
                break;
            }
            early.add(j);
            earlyPosts += byJob.get(j).size();
        }
        List<Post> first = new ArrayList<>();
        List<Post> rest = new ArrayList<>(duplicates);
        for (Post p : uniquePosts) {
            (early.contains(p.job()) ? first : rest).add(p);
        }
        Collections.shuffle(first, random);
        Collections.shuffle(rest, random);

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
            postAll(pool, first, statuses);
            List<String> lateJobs = new ArrayList<>();
            List<String> earlyJobs = new ArrayList<>();
            for (int j = 0; j < JOBS; j++) {
                (early.contains(j) ? earlyJobs : lateJobs).add(job(prefix + j, tenant, j));
            }
            env.jms().sendAll("mail.send", lateJobs);
            // on a loaded machine one queue poll may time out: that is no answer yet, not a failure
            await("send queues drained").atMost(Duration.ofMinutes(10)).ignoreExceptions().pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        Jobs.awaitSendQueuesDrained(env.api(), Duration.ofMinutes(1));
                        return true;
                    });
            env.jms().sendAll("mail.send", earlyJobs);
            long postStart = System.nanoTime();
            postAll(pool, rest, statuses);
            double seconds = (System.nanoTime() - postStart) / 1e9;
            System.out.printf("PROOF posted %d calls (early %d) by %d threads in %.1f s: %.0f events/s%n",
                    first.size() + rest.size(), first.size(), THREADS, seconds, rest.size() / seconds);
            long replays = duplicates.stream().filter(Post::replay).count();
            Map<String, Integer> answers = new TreeMap<>();
            statuses.forEach((k, v) -> answers.put(k, v.get()));
            System.out.println("PROOF answers " + answers);
            assertThat(answers).as("answers").isEqualTo(Map.of("stored", POSTS - (int) replays, "duplicate", (int) replays));

            // every stored call reconciled: none left received, none unmatched
            List<JsonNode> ours = awaitReconciled(env, "msg_" + prefix, POSTS - (int) replays);
            Map<String, Integer> byStatus = new TreeMap<>();
            for (JsonNode e : ours) {
                byStatus.merge(e.path("status").asText(), 1, Integer::sum);
            }
            assertThat(byStatus).as("0 unmatched, 0 unreadable").isEqualTo(Map.of("applied", POSTS - (int) replays));

            // every job in the state its events imply, each stored event once on its timeline
            Map<String, Integer> expectedCounts = new TreeMap<>();
            Map<String, Integer> actualCounts = new ConcurrentHashMap<>();
            Map<Integer, Instant> sentAt = new ConcurrentHashMap<>();
            List<Future<String>> checks = new ArrayList<>();
            for (int j = 0; j < JOBS; j++) {
                State w = worst[j][0] == null ? worst[j][1]
                        : worst[j][1] == null || worst[j][0].compareTo(worst[j][1]) >= 0 ? worst[j][0] : worst[j][1];
                String expected = jobState(w);
                expectedCounts.merge(expected, 1, Integer::sum);
                int job = j;
                checks.add(pool.submit(() -> {
                    JsonNode got = env.api().getJson("/api/v1/jobs/" + prefix + job);
                    String state = got.path("state").asText();
                    actualCounts.merge(state, 1, Integer::sum);
                    sentAt.put(job, Instant.parse(got.path("sent_at").asText()));
                    long events = 0;
                    for (JsonNode t : got.path("timeline")) {
                        String type = t.path("type").asText();
                        if (type.startsWith("delivery_") && !type.equals("delivery_state") && !type.equals("delivery_silent")) {
                            events++;
                        }
                    }
                    String problems = "";
                    if (!state.equals(expected)) {
                        problems += "job " + job + " is " + state + ", its events imply " + expected + "; ";
                    }
                    if (events != stored[job]) {
                        problems += "job " + job + " has " + events + " delivery events on its timeline, " + stored[job] + " stored; ";
                    }
                    return problems;
                }));
            }
            StringBuilder problems = new StringBuilder();
            for (Future<String> f : checks) {
                problems.append(f.get());
            }
            System.out.println("PROOF final states expected " + expectedCounts + ", found " + new TreeMap<>(actualCounts));
            assertThat(problems.toString()).isEmpty();
            assertThat(new TreeMap<>(actualCounts)).isEqualTo(expectedCounts);

            // the lag: from a call's acceptance to its job showing it (applied_at: the batch that put it on the job's
            // timeline and state committed right after); for a call that came before its job, from when the job was
            // sent, as it cannot be shown earlier (its wait for the job is reported on its own)
            Map<String, Integer> jobOfKey = new HashMap<>();
            uniquePosts.forEach(p -> jobOfKey.put(p.svixId(), p.job()));
            duplicates.forEach(p -> jobOfKey.put(p.svixId(), p.job()));
            List<Long> lagsMs = new ArrayList<>();
            List<Long> earlyLagsMs = new ArrayList<>();
            List<Long> earlyWaitsMs = new ArrayList<>();
            Instant firstOnTime = Instant.MAX;
            Instant lastApplied = Instant.MIN;
            for (JsonNode e : ours) {
                Instant received = Instant.parse(e.path("received_at").asText());
                Instant applied = Instant.parse(e.path("applied_at").asText());
                Instant jobSent = sentAt.get(jobOfKey.get(e.path("dedupe_key").asText()));
                assertThat(applied).as("call %s applied before it was accepted", e.path("dedupe_key").asText())
                        .isAfterOrEqualTo(received);
                boolean beforeItsJob = received.isBefore(jobSent);
                long lag = Duration.between(beforeItsJob ? jobSent : received, applied).toMillis();
                lagsMs.add(lag);
                lastApplied = applied.isAfter(lastApplied) ? applied : lastApplied;
                if (!beforeItsJob && received.isBefore(firstOnTime)) {
                    firstOnTime = received;
                }
                if (beforeItsJob) {
                    earlyLagsMs.add(lag);
                    earlyWaitsMs.add(Duration.between(received, applied).toMillis());
                }
            }
            Collections.sort(lagsMs);
            Collections.sort(earlyLagsMs);
            Collections.sort(earlyWaitsMs);
            long p99 = percentile(lagsMs, 0.99);
            double span = Duration.between(firstOnTime, lastApplied).toMillis() / 1000.0;
            System.out.printf("PROOF reconciled %d calls in %.1f s from the first one accepted to the last one applied: %.0f calls/s%n",
                    lagsMs.size() - earlyLagsMs.size(), span, (lagsMs.size() - earlyLagsMs.size()) / span);
            System.out.printf("PROOF reconciliation lag (accepted, or its job sent, -> applied) over %d calls: p50 %d ms, p99 %d ms,"
                    + " max %d ms%n", lagsMs.size(), percentile(lagsMs, 0.5), p99, lagsMs.get(lagsMs.size() - 1));
            if (!earlyLagsMs.isEmpty()) {
                System.out.printf("PROOF of them %d came before their job: after its send p50 %d ms, p99 %d ms; after their own"
                                + " acceptance (waiting for the job) p50 %d ms, max %d ms%n", earlyLagsMs.size(),
                        percentile(earlyLagsMs, 0.5), percentile(earlyLagsMs, 0.99), percentile(earlyWaitsMs, 0.5),
                        earlyWaitsMs.get(earlyWaitsMs.size() - 1));
            }
            assertThat(earlyLagsMs).as("calls that came before their job").isNotEmpty();
            assertThat(p99).as("reconciliation lag p99 (ms)").isLessThan(5000);

            // the rates the events imply, per recipient, page for this tenant
            long recipients = 2L * JOBS;
            long bounced = 0;
            long complained = 0;
            for (State[] job : worst) {
                for (State s : job) {
                    bounced += s == State.bounced ? 1 : 0;
                    complained += s == State.complained ? 1 : 0;
                }
            }
            double bounceRate = (double) bounced / recipients;
            double complaintRate = (double) complained / recipients;
            System.out.printf("PROOF implied bounce rate %.4f, complaint rate %.4f%n", bounceRate, complaintRate);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Map<String, Double> metrics = Prometheus.scrape(env);
                assertThat(metrics).as("the delivery rate gauges %s", metrics.keySet().stream()
                        .filter(k -> k.startsWith("mailroom_delivery_")).toList())
                        .containsKey("mailroom_delivery_bounce_rate|queue=mail.send,tenant=" + tenant);
                // the lag as the server counts it: every call this run stored (and any earlier IT's)
                assertThat(metrics.get("mailroom_reconcile_lag_seconds_count|profile=generic"))
                        .isGreaterThanOrEqualTo(POSTS - (double) replays);
                assertThat(metrics.get("mailroom_delivery_bounce_rate|queue=mail.send,tenant=" + tenant)).isCloseTo(bounceRate,
                        org.assertj.core.data.Offset.offset(1e-9));
                assertThat(metrics.get("mailroom_delivery_complaint_rate|queue=mail.send,tenant=" + tenant)).isCloseTo(complaintRate,
                        org.assertj.core.data.Offset.offset(1e-9));
                assertThat(env.alerts().since(start)).filteredOn(a -> "DeliveryRateExceeded".equals(a.label("alertname"))
                        && tenant.equals(a.label("tenant"))).extracting(a -> a.label("reason")).contains("bounce", "complaint");
            });
        } finally {
            pool.shutdownNow();
        }
    }

    static long percentile(List<Long> sorted, double p) {
        return sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * p) - 1));
    }

    static String job(String messageId, String tenant, int n) {
        return """
                {"schema_version": 1, "message_id": "%s", "tenant": "%s", "from": "Mailroom IT <noreply@example.com>",
                 "to": ["a%d@proof.example"], "cc": ["B%d@Proof.Example"], "subject": "Proof %s", "text": "proof"}"""
                .formatted(messageId, tenant, n, n, messageId);
    }

    /**
     * Posts every call, signed by the server's clock (read once: an earlier IT may have moved it); answers are
     * counted as {@code stored} (202, new), {@code duplicate} (409 replayed, or 202 naming the call already stored
     * when the verifier's replay memory had forgotten its id) or the status code.
     */
    private static void postAll(ExecutorService pool, List<Post> posts, Map<String, AtomicInteger> statuses) throws Exception {
        Duration serverAhead = Duration.between(Instant.now(), Webhooks.serverNow());
        List<Future<?>> sent = new ArrayList<>();
        for (Post p : posts) {
            sent.add(pool.submit(() -> {
                HttpResponse<String> r = Webhooks.post("generic", p.svixId(), Instant.now().plus(serverAhead), p.body(),
                        ItEnvironment.WEBHOOK_SECRET);
                String outcome = r.statusCode() == 409 || (r.statusCode() == 202 && r.body().contains("\"duplicate\":true"))
                        ? "duplicate" : r.statusCode() == 202 ? "stored" : r.statusCode() + " " + r.body();
                statuses.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
                return null;
            }));
        }
        for (Future<?> f : sent) {
            f.get();
        }
    }

    /** Pages the inbox until every one of our {@code expected} stored calls is reconciled (bounded). */
    private static List<JsonNode> awaitReconciled(ItEnvironment env, String keyPrefix, int expected) {
        List<JsonNode> ours = new ArrayList<>();
        await("every stored call reconciled").atMost(Duration.ofMinutes(5)).ignoreExceptions().pollInterval(Duration.ofSeconds(2)).until(() -> {
            ours.clear();
            long after = 0;
            while (true) {
                JsonNode page = env.api().getJson("/api/v1/provider-events?profile=generic&limit=1000&after=" + after);
                if (page.size() == 0) {
                    break;
                }
                for (JsonNode e : page) {
                    if (e.path("dedupe_key").asText().startsWith(keyPrefix)) {
                        ours.add(e);
                    }
                    after = e.path("id").asLong();
                }
            }
            return ours.size() == expected && ours.stream().noneMatch(e -> "received".equals(e.path("status").asText()));
        });
        return ours;
    }
}
