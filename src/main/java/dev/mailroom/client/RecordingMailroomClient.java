package dev.mailroom.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link MailroomClient} that keeps what it is given, in memory, for the producer's own tests: nothing is sent.
 * Jobs are built (and so checked) before they get here, so a test that sends a broken job fails where it builds it,
 * as it would in production. Thread-safe.
 */
public final class RecordingMailroomClient implements MailroomClient {

    /** One send: the job and the queue it would have gone to. */
    public record Sent(MailJob job, String queue) { }

    private final String queue;
    private final List<Sent> sent = new ArrayList<>();

    /** Records sends to {@link #DEFAULT_QUEUE} for jobs that name no queue. */
    public RecordingMailroomClient() {
        this(DEFAULT_QUEUE);
    }

    public RecordingMailroomClient(String queue) {
        this.queue = Objects.requireNonNull(queue, "queue");
    }

    @Override
    public synchronized String send(MailJob job) {
        Objects.requireNonNull(job, "job");
        sent.add(new Sent(job, job.queue().orElse(queue)));
        return job.messageId();
    }

    /** The jobs sent so far, oldest first, each as often as it was sent. */
    public synchronized List<MailJob> jobs() {
        return sent.stream().map(Sent::job).toList();
    }

    /** The sends so far with their queues, oldest first. */
    public synchronized List<Sent> sends() {
        return List.copyOf(sent);
    }

    /** The jobs sent to {@code address} (in to, cc or bcc), oldest first. */
    public synchronized List<MailJob> jobsTo(String address) {
        return sent.stream().map(Sent::job).filter(j -> addressed(j, address)).toList();
    }

    /** Forgets every send. */
    public synchronized void clear() {
        sent.clear();
    }

    private static boolean addressed(MailJob job, String address) {
        for (String field : List.of("to", "cc", "bcc")) {
            if (job.document().get(field) instanceof List<?> list && list.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
