package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Making dead letters during an SMTP outage, and planning, running and reading redrives, for the ITs; and the redrive
 * of an outage's dead-letter group, which RedriveIT and LibertyIT both run.
 */
public final class RedriveScenario {

    /** The bulk queue: in the IT server one transient retry after 1 s, so an outage dead-letters in seconds. */
    public static final String QUEUE = "mail.send.bulk";
    public static final int OUTAGE_CODE = 451;
    public static final String OUTAGE_TEXT = "4.3.0 relay is down for maintenance";

    private final Mailroom env;
    private final ApiClient api;

    public RedriveScenario(Mailroom env) {
        this.env = env;
        this.api = env.api();
    }

    public void outage(boolean on) {
        env.smtp().setOutage(on ? OUTAGE_CODE : null, OUTAGE_TEXT);
    }

    /** Sends the jobs to the bulk queue and waits until each is dead-lettered; returns their dead-letter ids. */
    public Map<String, Long> deadLetterJobs(List<String> messageIds, String reason, Instant since) {
        env.jms().sendAll(QUEUE, Jobs.jobs(messageIds));
        return awaitDeadLetters(messageIds, reason, since);
    }

    public Map<String, Long> awaitDeadLetters(List<String> messageIds, String reason, Instant since) {
        Map<String, Long> ids = new HashMap<>();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (ids.size() < messageIds.size()) {
            ids.clear();
            JsonNode page = api.getJson("/api/v1/dead-letters?queue=" + QUEUE + "&reason=" + reason + "&from=" + since
                    + "&limit=1000");
            for (JsonNode d : page.path("items")) {
                if (messageIds.contains(d.path("message_id").asText())) {
                    ids.put(d.path("message_id").asText(), d.path("id").asLong());
                }
            }
            assertThat(Instant.now()).as("all %d jobs dead-lettered as %s (have %d)", messageIds.size(), reason,
                    ids.size()).isBefore(deadline);
            Jobs.sleep(300);
        }
        return ids;
    }

    /**
     * Jobs dead-lettered by a relay outage on {@link #QUEUE} (three poison messages beside them) are one group of
     * {@code GET /api/v1/dead-letters/groups}; after the outage a plan of that group is a dry run, then sends a sample
     * of 10 and the other 30 at 2 a second, each mail once with its idempotency key, and marks every entry replayed:
     * a second plan of the group is empty. The poison stays open.
     */
    public void afterTheOutageAPlanOfItsGroupSendsTheSampleThenTheRestAtTheSetRate() {
        String prefix = Jobs.runPrefix("redrive-ok");
        List<String> jobs = Jobs.ids(prefix, 40);
        Instant outageStart = Instant.now();
        outage(true);
        for (int i = 0; i < 3; i++) {
            env.jms().sendText(QUEUE, "not a job " + prefix + i);
        }
        Map<String, Long> dead;
        try {
            dead = deadLetterJobs(jobs, "retries_exhausted", outageStart);
        } finally {
            outage(false);
        }
        Instant outageEnd = Instant.now();
        List<Long> poison = deadLetterIds("poison", outageStart, outageEnd);
        assertThat(poison).hasSize(3);

        ObjectNode filter = outageGroup(outageStart, outageEnd, jobs.size());
        JsonNode plan = plan(filter, null, null);
        assertThat(plan.path("status").asText()).isEqualTo("planned");
        assertThat(plan.path("cohort").path("count").asInt()).isEqualTo(40);
        assertThat(plan.path("cohort").path("by_reason").path("retries_exhausted").asInt()).isEqualTo(40);
        Set<Long> planned = new HashSet<>();
        plan.path("entries").forEach(e -> planned.add(e.path("dead_letter_id").asLong()));
        assertThat(planned).containsExactlyInAnyOrderElementsOf(dead.values());
        assertThat(plan.path("options").path("sample_size").asInt()).isEqualTo(10);
        assertThat(plan.path("options").path("rate_per_second").asDouble()).isEqualTo(2.0);
        // a dry run: nothing moved
        assertThat(env.smtp().countsByMessageId()).doesNotContainKeys(smtpIds(jobs).toArray(String[]::new));

        run(plan.path("id").asText());
        JsonNode record = await(plan.path("id").asText(), status("completed", "stopped").and(allOutcomes("sent")),
                Duration.ofSeconds(150));
        assertThat(record.path("status").asText()).isEqualTo("completed");
        assertThat(record.path("outcomes").path("sent").asInt()).isEqualTo(40);
        assertThat(entries(record, "sample")).hasSize(10);
        assertThat(entries(record, "remainder")).hasSize(30);
        List<String> phases = new ArrayList<>();
        record.path("phases").forEach(p -> phases.add(p.path("name").asText()));
        assertThat(phases).containsExactly("sample", "sample_outcomes", "remainder");
        assertRemainderRate(record);
        // each of the 40 exactly once; the idempotency key (the message id) kept: same Message-ID
        Map<String, Integer> counts = env.smtp().countsByMessageId();
        for (String id : smtpIds(jobs)) {
            assertThat(counts.get(id)).as("mails with Message-ID %s", id).isEqualTo(1);
        }
        for (long id : poison) {
            assertThat(api.getJson("/api/v1/dead-letters/" + id).path("status").asText()).isEqualTo("open");
        }
        for (long id : dead.values()) {
            JsonNode d = api.getJson("/api/v1/dead-letters/" + id);
            assertThat(d.path("status").asText()).isEqualTo("replayed");
            assertThat(d.path("redrive_id").asText()).isEqualTo(plan.path("id").asText());
        }
        // replayed entries are not in a later plan of the same group
        JsonNode again = plan(filter, null, null);
        assertThat(again.path("cohort").path("count").asInt()).isZero();
        assertThat(again.path("cohort").path("excluded").path("replayed").asInt()).isEqualTo(40);
    }

    /**
     * The filter of the one {@code retries_exhausted} group of {@link #QUEUE} in the window, as an operator takes it
     * from the groups page (queue, reason, error type and fingerprint, window); it holds {@code count} dead letters.
     */
    private ObjectNode outageGroup(Instant from, Instant to, int count) {
        JsonNode groups = api.getJson("/api/v1/dead-letters/groups?queue=" + QUEUE + "&reason=retries_exhausted&from="
                + from + "&to=" + to);
        assertThat(groups).as("the outage's groups: %s", groups).hasSize(1);
        JsonNode group = groups.get(0);
        assertThat(group.path("count").asInt()).as("the outage's group: %s", group).isEqualTo(count);
        assertThat(group.path("fingerprint").asText()).contains("relay is down for maintenance");
        return filter().put("queue", QUEUE).put("reason", group.path("reason").asText())
                .put("error_type", group.path("error_type").asText())
                .put("fingerprint", group.path("fingerprint").asText())
                .put("from", from.toString()).put("to", to.toString());
    }

    /** The remainder went at 2/s: published (by the run) and received (by the SMTP server) within 20 %. */
    private void assertRemainderRate(JsonNode record) {
        List<Instant> published = entries(record, "remainder").stream()
                .map(e -> Instant.parse(e.path("published_at").asText())).sorted().toList();
        assertThat(perSecond(published)).as("remainder publish rate").isBetween(1.6, 2.4);
        Set<String> remainderSmtpIds = new HashSet<>();
        entries(record, "remainder").forEach(e -> remainderSmtpIds.add(Jobs.smtpMessageId(e.path("message_id").asText())));
        List<Instant> received = env.smtp().received().stream().filter(m -> remainderSmtpIds.contains(m.messageId()))
                .map(m -> m.at()).sorted().toList();
        assertThat(received).hasSize(30);
        assertThat(perSecond(received)).as("remainder arrival rate at the SMTP server").isBetween(1.6, 2.4);
    }

    private static double perSecond(List<Instant> sorted) {
        return (sorted.size() - 1) / (Duration.between(sorted.get(0), sorted.get(sorted.size() - 1)).toMillis() / 1000.0);
    }

    /** The ids of the dead letters of {@link #QUEUE} with this reason in the window. */
    public List<Long> deadLetterIds(String reason, Instant from, Instant to) {
        List<Long> ids = new ArrayList<>();
        api.getJson("/api/v1/dead-letters?queue=" + QUEUE + "&reason=" + reason + "&from=" + from + "&to=" + to
                + "&limit=1000").path("items").forEach(d -> ids.add(d.path("id").asLong()));
        return ids;
    }

    public ObjectNode filter() {
        return api.mapper().createObjectNode();
    }

    public static ArrayNode ids(ObjectNode filter, Iterable<Long> ids) {
        ArrayNode a = filter.putArray("ids");
        ids.forEach(a::add);
        return a;
    }

    public JsonNode plan(ObjectNode filter, Integer sampleSize, Double rate) {
        ObjectNode body = api.mapper().createObjectNode();
        body.set("filter", filter);
        if (sampleSize != null) {
            body.put("sample_size", sampleSize);
        }
        if (rate != null) {
            body.put("rate_per_second", rate);
        }
        body.put("reason", "outage over");
        return api.postJson("/api/v1/redrives", body.toString(), 201);
    }

    public JsonNode run(String id) {
        return api.postJson("/api/v1/redrives/" + id + "/run", "", 202);
    }

    public JsonNode record(String id) {
        return api.getJson("/api/v1/redrives/" + id);
    }

    public JsonNode await(String id, Predicate<JsonNode> until, Duration timeout) {
        return api.awaitJson("/api/v1/redrives/" + id, until, timeout);
    }

    public static Predicate<JsonNode> status(String... statuses) {
        return r -> List.of(statuses).contains(r.path("status").asText());
    }

    /** Every entry's outcome is one of {@code outcomes}. */
    public static Predicate<JsonNode> allOutcomes(String... outcomes) {
        return r -> {
            for (JsonNode e : r.path("entries")) {
                if (!List.of(outcomes).contains(e.path("outcome").asText())) {
                    return false;
                }
            }
            return true;
        };
    }

    public static Map<String, String> outcomesByMessageId(JsonNode record) {
        Map<String, String> m = new HashMap<>();
        record.path("entries").forEach(e -> m.put(e.path("message_id").asText(), e.path("outcome").asText()));
        return m;
    }

    public static List<JsonNode> entries(JsonNode record, String phase) {
        List<JsonNode> list = new ArrayList<>();
        record.path("entries").forEach(e -> {
            if (phase == null || phase.equals(e.path("phase").asText())) {
                list.add(e);
            }
        });
        return list;
    }

    /** The SMTP Message-IDs of jobs whose idempotency key is their message id. */
    public static List<String> smtpIds(List<String> messageIds) {
        return messageIds.stream().map(Jobs::smtpMessageId).toList();
    }
}
