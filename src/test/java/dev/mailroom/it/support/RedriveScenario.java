package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mailroom.it.support.ApiClient;
import dev.mailroom.it.support.ItEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Making dead letters during an SMTP outage, and planning, running and reading redrives, for the ITs. */
public final class RedriveScenario {

    /** The bulk queue: in the IT server one transient retry after 1 s, so an outage dead-letters in seconds. */
    public static final String QUEUE = "mail.send.bulk";
    public static final int OUTAGE_CODE = 451;
    public static final String OUTAGE_TEXT = "4.3.0 relay is down for maintenance";

    private final ItEnvironment env;
    private final ApiClient api;

    public RedriveScenario(ItEnvironment env) {
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
