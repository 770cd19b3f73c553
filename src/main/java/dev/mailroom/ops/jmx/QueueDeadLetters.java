package dev.mailroom.ops.jmx;

import java.util.Map;
import java.util.function.Supplier;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MalformedObjectNameException;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * The MBean of one send queue: a thin adapter onto {@link QueueOperations}. Each call runs inside the deployment
 * through {@link QueueMBeans#inDeployment} and turns failures into what a JMX client can read ({@link JmxErrors}).
 */
public final class QueueDeadLetters extends StandardMBean implements DeadLettersMBean {

    public static final String DOMAIN = "mailroom";

    private static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry("Queue", "The send queue"),
            Map.entry("Depth", "Messages on the dead-letter queue DLQ.<queue> (broker)"),
            Map.entry("OpenDeadLetters", "Open dead letters of the queue (dead_letter table)"),
            Map.entry("OldestOpenAgeSeconds", "Seconds since the oldest open dead letter of the queue failed; 0 when none is open"),
            Map.entry("ConsumersPaused", "Whether the queue's consumers are paused on this node"),
            Map.entry("PausedReason", "Why the queue's line is stopped (systemic, providers_open, dead_letter_rate, database, operator); empty while it runs"),
            Map.entry("PausedSince", "Since when the queue's line is stopped (ISO-8601); empty while it runs"),
            Map.entry("planRedrive", "Plans a redrive of the queue's open dead letters (dry run); returns the plan as JSON"),
            Map.entry("runRedrive", "Runs a plan of this queue; returns its recovery record as JSON"),
            Map.entry("redriveRecord", "A plan's or run's recovery record as JSON"),
            Map.entry("discard", "Discards one open dead letter of this queue (actor jmx); returns it as JSON"),
            Map.entry("markSent", "Closes an unknown job of this queue as sent_to_provider (actor jmx, reason recorded)"),
            Map.entry("sendAgain", "Sends an unknown job of this queue once more: same bytes, key and Message-ID (actor jmx)"),
            Map.entry("pauseConsumers", "Stops the queue's consumers on this node; messages stay on the queue"),
            Map.entry("resumeConsumers", "Starts the queue's consumers on this node again"));

    private static final Map<String, String[]> PARAMETERS = Map.of(
            "planRedrive", new String[] {"filterJson"},
            "runRedrive", new String[] {"planId"},
            "redriveRecord", new String[] {"planId"},
            "discard", new String[] {"deadLetterId", "reason"},
            "markSent", new String[] {"messageId", "reason"},
            "sendAgain", new String[] {"messageId", "reason"});

    private final String queue;
    private final QueueOperations operations;
    private final QueueMBeans door;

    QueueDeadLetters(String queue, QueueOperations operations, QueueMBeans door) throws NotCompliantMBeanException {
        super(DeadLettersMBean.class);
        this.queue = queue;
        this.operations = operations;
        this.door = door;
    }

    /** {@code mailroom:type=DeadLetters,queue=<queue>} (the queue quoted only if it has to be). */
    public static ObjectName objectName(String queue) throws MalformedObjectNameException {
        String value = queue.matches("[A-Za-z0-9_.\\-]+") ? queue : ObjectName.quote(queue);
        return new ObjectName(DOMAIN + ":type=DeadLetters,queue=" + value);
    }

    @Override
    public String getQueue() {
        return queue;
    }

    @Override
    public long getDepth() {
        return call("Depth", () -> operations.depth(queue));
    }

    @Override
    public long getOpenDeadLetters() {
        return call("OpenDeadLetters", () -> operations.openDeadLetters(queue));
    }

    @Override
    public long getOldestOpenAgeSeconds() {
        return call("OldestOpenAgeSeconds", () -> operations.oldestOpenAgeSeconds(queue));
    }

    @Override
    public boolean isConsumersPaused() {
        return call("ConsumersPaused", () -> operations.consumersPaused(queue));
    }

    @Override
    public String getPausedReason() {
        return call("PausedReason", () -> operations.pausedReason(queue));
    }

    @Override
    public String getPausedSince() {
        return call("PausedSince", () -> operations.pausedSince(queue));
    }

    @Override
    public String planRedrive(String filterJson) {
        return call("planRedrive", () -> operations.planRedrive(queue, filterJson));
    }

    @Override
    public String runRedrive(String planId) {
        return call("runRedrive", () -> operations.runRedrive(queue, planId));
    }

    @Override
    public String redriveRecord(String planId) {
        return call("redriveRecord", () -> operations.redriveRecord(planId));
    }

    @Override
    public String discard(long deadLetterId, String reason) {
        return call("discard", () -> operations.discard(queue, deadLetterId, reason));
    }

    @Override
    public String markSent(String messageId, String reason) {
        return call("markSent", () -> operations.markSent(queue, messageId, reason));
    }

    @Override
    public String sendAgain(String messageId, String reason) {
        return call("sendAgain", () -> operations.sendAgain(queue, messageId, reason));
    }

    @Override
    public void pauseConsumers() {
        call("pauseConsumers", () -> {
            operations.pause(queue);
            return null;
        });
    }

    @Override
    public void resumeConsumers() {
        call("resumeConsumers", () -> {
            operations.resume(queue);
            return null;
        });
    }

    private <T> T call(String operation, Supplier<T> body) {
        return JmxErrors.inDeployment(door, operation, queue, body);
    }

    // ---- descriptions and parameter names, for jconsole and other generic clients

    @Override
    protected String getDescription(MBeanInfo info) {
        return "Dead letters and consumers of the send queue " + queue;
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        return DESCRIPTIONS.getOrDefault(info.getName(), info.getDescription());
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        return DESCRIPTIONS.getOrDefault(info.getName(), info.getDescription());
    }

    @Override
    protected String getParameterName(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        String[] names = PARAMETERS.get(op.getName());
        return names != null && sequence < names.length ? names[sequence] : param.getName();
    }

    @Override
    protected int getImpact(MBeanOperationInfo info) {
        return switch (info.getName()) {
            case "redriveRecord" -> MBeanOperationInfo.INFO;
            case "planRedrive" -> MBeanOperationInfo.ACTION_INFO;
            default -> MBeanOperationInfo.ACTION;
        };
    }
}
