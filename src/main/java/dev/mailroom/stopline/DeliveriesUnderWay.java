package dev.mailroom.stopline;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The deliveries this node's send-queue consumers are running now, per queue, with when each began: what a stopping
 * line waits for before it stops the consumers ({@link ConsumerStop}).
 */
@ApplicationScoped
public class DeliveriesUnderWay {

    private record Delivery(String queue, Instant began) { }

    @Inject
    Clock clock;

    private final Map<Long, Delivery> underWay = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    /** Threads in {@link #awaitDrained}: a delivery's end wakes them, and costs nothing when there are none. */
    private final AtomicInteger waiting = new AtomicInteger();

    protected DeliveriesUnderWay() {
    }

    public DeliveriesUnderWay(Clock clock) {
        this.clock = clock;
    }

    /** A delivery of {@code queue} begins; returns its ticket for {@link #end}. */
    public long begin(String queue) {
        long id = ids.incrementAndGet();
        underWay.put(id, new Delivery(queue, clock.instant()));
        return id;
    }

    /** The delivery with this ticket ended (returned or threw). */
    public void end(long ticket) {
        if (underWay.remove(ticket) != null && waiting.get() > 0) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /** How many deliveries of {@code queue} began before {@code since} and have not ended. */
    public int begunBefore(String queue, Instant since) {
        return (int) underWay.values().stream()
                .filter(d -> d.queue().equals(queue) && d.began().isBefore(since)).count();
    }

    /**
     * What {@link ConsumerStop} decides for the line of {@code queue} stopped at {@code since}; with {@code mayWait},
     * waits (on this thread, never a delivery's) until that is no longer {@link ConsumerStop.Decision.Wait}.
     */
    ConsumerStop.Decision consumersMayStop(String queue, Instant since, Duration drainTimeout, boolean mayWait) {
        while (true) {
            ConsumerStop.Decision d = ConsumerStop.decide(begunBefore(queue, since),
                    Duration.between(since, clock.instant()), drainTimeout);
            if (!mayWait || !(d instanceof ConsumerStop.Decision.Wait w)) {
                return d;
            }
            waiting.incrementAndGet();
            try {
                synchronized (this) {
                    // bounded: the clock decides when the drain timeout is over, a missed wake-up costs a second
                    wait(Math.max(1, Math.min(1000, w.left().toMillis())));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return d;
            } finally {
                waiting.decrementAndGet();
            }
        }
    }
}
