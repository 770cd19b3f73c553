package dev.mailroom.platform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Queue figures of a remote ActiveMQ Artemis (primary and backup), read through the broker's own management API:
 * Jolokia on its web console ({@code POST <console>/console/jolokia/}, a {@code read} of the queue's
 * {@code QueueControl} attributes {@code MessageCount}, {@code DeliveringCount}, {@code ScheduledCount},
 * {@code ConsumerCount}). Only the active broker has the queue's MBean: a backup that has not taken over answers
 * "not found", so the consoles are asked in turn, starting with the one that answered last.
 *
 * <p>Jolokia rather than the core management address: it needs no Artemis client classes in the deployment and
 * no request/reply over JMS outside the transaction, and it is what the broker console itself uses. The user
 * needs a console role (server-config/artemis grants role {@code mailroom} read-only access).
 */
final class RemoteBrokerQueues implements BrokerQueues {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final String[] ATTRIBUTES = {"MessageCount", "DeliveringCount", "ScheduledCount", "ConsumerCount"};

    private final List<URI> consoles;
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private volatile int lastAnswered;

    RemoteBrokerQueues(List<URI> consoles, String user, String password) {
        this.consoles = List.copyOf(consoles);
        this.authorization = "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public QueueFigures figures(String queue) {
        List<String> failures = new ArrayList<>();
        int start = lastAnswered;
        for (int i = 0; i < consoles.size(); i++) {
            int at = (start + i) % consoles.size();
            URI console = consoles.get(at);
            try {
                JsonNode answer = post(console, readRequest(queue));
                if (answer.path("status").asInt() == 200 && answer.path("value").size() > 0) {
                    lastAnswered = at;
                    return figures(queue, answer.path("value").elements().next());
                }
                failures.add(console + ": " + answer.path("status").asText() + " " + answer.path("error").asText());
            } catch (IOException e) {
                failures.add(console + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BrokerUnavailableException("interrupted while reading the figures of " + queue, e);
            }
        }
        throw new BrokerUnavailableException("no broker console has figures for " + queue + ": " + failures, null);
    }

    /** The active broker's store disk, from the first console that answers for it; empty when none does. */
    @Override
    public java.util.Optional<DiskFigures> disk() {
        for (URI console : consoles) {
            try {
                JsonNode answer = post(console, diskRequest());
                java.util.Optional<DiskFigures> d = disk(answer.path("value"));
                if (d.isPresent()) {
                    return d;
                }
            } catch (IOException e) {
                // that console is down: the next one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return java.util.Optional.empty();
            }
        }
        return java.util.Optional.empty();
    }

    /** A read of the broker's own attributes (the server control, whatever the broker's name). */
    static ObjectNode diskRequest() {
        ObjectNode request = JSON.createObjectNode();
        request.put("type", "read");
        request.put("mbean", "org.apache.activemq.artemis:broker=*");
        request.putArray("attribute").add("Active").add("DiskStoreUsage").add("MaxDiskUsage").add("JournalDirectory");
        return request;
    }

    /**
     * The active broker's disk figures from a pattern read's value ({@code {mbean: {attribute: value}}}); Artemis
     * gives {@code MaxDiskUsage} in percent (-1: none) and {@code DiskStoreUsage} as a share.
     */
    static java.util.Optional<DiskFigures> disk(JsonNode value) {
        for (java.util.Iterator<java.util.Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            java.util.Map.Entry<String, JsonNode> e = it.next();
            JsonNode a = e.getValue();
            if (a.path("Active").asBoolean(false) && a.path("DiskStoreUsage").isNumber()) {
                String broker = e.getKey().replaceAll(".*broker=\"?([^\",]*)\"?.*", "$1");
                return java.util.Optional.of(new DiskFigures(broker, a.path("DiskStoreUsage").asDouble(),
                        a.path("MaxDiskUsage").asDouble(-1) / 100.0, a.path("JournalDirectory").asText("?")));
            }
        }
        return java.util.Optional.empty();
    }

    /** A read of every anycast queue of that name on any broker (the pattern spares knowing the broker's name). */
    static ObjectNode readRequest(String queue) {
        ObjectNode request = JSON.createObjectNode();
        request.put("type", "read");
        String q = quote(queue);
        request.put("mbean", "org.apache.activemq.artemis:broker=*,component=addresses,address=" + q
                + ",subcomponent=queues,routing-type=\"anycast\",queue=" + q);
        request.putArray("attribute").add(ATTRIBUTES[0]).add(ATTRIBUTES[1]).add(ATTRIBUTES[2]).add(ATTRIBUTES[3]);
        return request;
    }

    static QueueFigures figures(String queue, JsonNode attributes) {
        return new QueueFigures(queue, number(attributes, ATTRIBUTES[0]), number(attributes, ATTRIBUTES[1]),
                number(attributes, ATTRIBUTES[2]), number(attributes, ATTRIBUTES[3]));
    }

    private static long number(JsonNode attributes, String name) {
        JsonNode v = attributes.get(name);
        return v != null && v.isNumber() ? v.asLong() : -1;
    }

    /** An ObjectName quoted value (Artemis quotes address and queue names). */
    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("*", "\\*").replace("?", "\\?") + "\"";
    }

    private JsonNode post(URI console, ObjectNode request) throws IOException, InterruptedException {
        HttpRequest r = HttpRequest.newBuilder(console.resolve("/console/jolokia/"))
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .header("Authorization", authorization)
                // Artemis's jolokia-access.xml checks the origin strictly; the console's own origin passes
                .header("Origin", console.getScheme() + "://" + console.getAuthority())
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request)))
                .build();
        HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode());
        }
        return JSON.readTree(response.body());
    }
}
