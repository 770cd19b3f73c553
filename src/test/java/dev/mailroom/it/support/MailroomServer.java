package dev.mailroom.it.support;

import java.nio.file.Path;

/**
 * What a scenario needs of the server Mailroom runs on, whichever it is ({@link WildFlyServer}, {@link LibertyServer}):
 * start it, stop it, kill it as a crash does, reach it, read its log. A restart keeps the server's data (its H2 files,
 * its transaction log), as a restart in production does.
 */
public interface MailroomServer extends AutoCloseable {

    /** Starts the server (again, with the data it kept) and returns once Mailroom answers its health check. */
    MailroomServer start();

    /** Graceful stop (SIGTERM, then SIGKILL past a bound); idempotent. */
    void stop();

    /** SIGKILL to the server JVM, as in a crash; returns once it is gone and its HTTP port is free. */
    void killHard();

    /** Stops the server if it runs, then starts it again. */
    default MailroomServer restart() {
        stop();
        return start();
    }

    /** {@code http://127.0.0.1:<http port>/mailroom}. */
    String baseUrl();

    /** The server's own log (for a failure's message). */
    Path log();

    @Override
    void close();
}
