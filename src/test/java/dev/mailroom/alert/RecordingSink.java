package dev.mailroom.alert;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A sink for tests: records what it was offered and what it took; can fail a number of times or block. */
final class RecordingSink implements AlertSink {

    private final String name;
    private final AtomicInteger failuresLeft = new AtomicInteger();
    /** Every call, delivered or not. */
    final List<List<Alert>> offered = new CopyOnWriteArrayList<>();
    /** Calls that succeeded. */
    final List<List<Alert>> delivered = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch blockUntil;
    final CountDownLatch entered = new CountDownLatch(1);

    RecordingSink(String name) {
        this.name = name;
    }

    RecordingSink failing(int times) {
        failuresLeft.set(times);
        return this;
    }

    /** The next deliveries wait for {@code latch} (at most a minute, so a broken test cannot hang). */
    RecordingSink blockingOn(CountDownLatch latch) {
        blockUntil = latch;
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void deliver(List<Alert> alerts) throws Exception {
        offered.add(List.copyOf(alerts));
        entered.countDown();
        CountDownLatch b = blockUntil;
        if (b != null && !b.await(1, TimeUnit.MINUTES)) {
            throw new IllegalStateException("test sink was never released");
        }
        if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new java.io.IOException(name + " is down");
        }
        delivered.add(List.copyOf(alerts));
    }

    /** Every alert taken, in order. */
    List<Alert> alerts() {
        List<Alert> all = new ArrayList<>();
        delivered.forEach(all::addAll);
        return all;
    }
}
