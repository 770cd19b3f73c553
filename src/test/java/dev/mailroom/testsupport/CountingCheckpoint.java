package dev.mailroom.testsupport;

import dev.mailroom.provider.SendCheckpoint;
import java.util.concurrent.atomic.AtomicInteger;

/** A checkpoint that counts how often a provider passed its point of no return. */
public final class CountingCheckpoint implements SendCheckpoint {

    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public void beforeIrrevocableWrite() {
        calls.incrementAndGet();
    }

    public int calls() {
        return calls.get();
    }
}
