package dev.mailroom.ops.jmx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.platform.Refused;
import dev.mailroom.deadletter.DeadLetterFilter;
import dev.mailroom.redrive.RedriveRequest;

/** Turns what a JMX client typed into a redrive request bound to one queue. Pure. */
final class JmxRequests {

    private JmxRequests() {
    }

    /**
     * {@code json}: empty (every open dead letter of the queue), a filter object, or a whole request (an object
     * with {@code filter} or {@code action}). The filter's queue becomes {@code queue}; naming another queue is
     * refused ({@link Refused} 400 {@code invalid_filter}), as is anything that is not such an object (unknown fields included).
     */
    static RedriveRequest forQueue(String json, String queue, ObjectMapper mapper) {
        JsonNode node;
        try {
            node = json == null || json.isBlank() ? mapper.createObjectNode() : mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new Refused.Invalid("invalid_filter", "the filter is not JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new Refused.Invalid("invalid_filter", "the filter must be a JSON object, e.g. {\"reason\": \"poison\"}");
        }
        RedriveRequest request;
        try {
            if (node.has("filter") || node.has("action")) {
                request = mapper.treeToValue(node, RedriveRequest.class);
            } else {
                request = new RedriveRequest(null, mapper.treeToValue(node, DeadLetterFilter.class), null, null, null,
                        null, null);
            }
        } catch (JsonProcessingException e) {
            throw new Refused.Invalid("invalid_filter", "the filter is not a redrive filter or request: " + e.getOriginalMessage());
        }
        DeadLetterFilter f = request.filter() == null ? DeadLetterFilter.ANY : request.filter();
        if (f.queue() != null && !f.queue().equals(queue)) {
            throw new Refused.Invalid("invalid_filter", "this MBean plans redrives of " + queue + " only; the filter names queue "
                    + f.queue() + " (use that queue's MBean)");
        }
        return new RedriveRequest(request.action(), f.withQueue(queue), request.sampleSize(), request.sampleRatePerSecond(),
                request.ratePerSecond(), request.sampleTimeout(), request.reason(), request.skipSample());
    }
}
