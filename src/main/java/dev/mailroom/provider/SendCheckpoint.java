package dev.mailroom.provider;

/** Marks the point of no return of one provider call; see {@link MailProvider#send}. */
@FunctionalInterface
public interface SendCheckpoint {
    void beforeIrrevocableWrite();

    SendCheckpoint NONE = () -> { };
}
