package dev.mailroom.ops.jmx;

/**
 * The management interface of one send queue's dead letters ({@code mailroom:type=DeadLetters,queue=<queue>}).
 * Plain types only (String, long, boolean), so any JMX client (jconsole, scripts) can use it without Mailroom's
 * classes; structured answers are JSON strings written like the REST API's (snake_case, ISO-8601 instants).
 */
public interface DeadLettersMBean {

    /** The send queue this MBean is about. */
    String getQueue();

    /** Messages on the queue's dead-letter queue {@code DLQ.<queue>} (from the broker). */
    long getDepth();

    /** Open dead letters of the queue (the {@code dead_letter} table). */
    long getOpenDeadLetters();

    /** Age in seconds of the oldest open dead letter of the queue (since it failed); 0 when none is open. */
    long getOldestOpenAgeSeconds();

    /** Whether the queue's consumers are paused on this node. */
    boolean isConsumersPaused();

    /** Why the queue's line is stopped ({@code systemic}, {@code providers_open}, {@code dead_letter_rate},
     * {@code database}, {@code operator}); empty while it runs. */
    String getPausedReason();

    /** Since when the queue's line is stopped (ISO-8601); empty while it runs. */
    String getPausedSince();

    /**
     * Plans a redrive (a dry run: nothing changes) of this queue's open dead letters and returns the plan as JSON.
     * {@code filterJson} is a filter ({@code {"reason": "poison", "from": "2030-01-01T00:00:00Z", ...}}), or a whole
     * request ({@code {"action": "replay"|"discard", "filter": {...}, "sample_size": 10, "reason": "..."}});
     * empty selects every open dead letter of the queue. The filter's queue is always this queue.
     */
    String planRedrive(String filterJson);

    /** Runs a plan of this queue; returns its recovery record as JSON. */
    String runRedrive(String planId);

    /** A plan's or run's recovery record as JSON. */
    String redriveRecord(String planId);

    /** Discards one open dead letter of this queue (resolved without sending), recorded with actor "jmx" and the reason. */
    String discard(long deadLetterId, String reason);

    /** Stops the queue's consumers on this node: messages stay on the queue until resumed. */
    void pauseConsumers();

    /** Starts the queue's consumers on this node again. */
    void resumeConsumers();

    /** An {@code unknown} job of this queue reached the provider after all: {@code sent_to_provider} (actor jmx, why recorded). */
    String markSent(String messageId, String reason);

    /** Sends an {@code unknown} job of this queue once more: same bytes, idempotency key and Message-ID (actor jmx). */
    String sendAgain(String messageId, String reason);
}
