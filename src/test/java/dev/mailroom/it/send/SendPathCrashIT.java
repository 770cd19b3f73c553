package dev.mailroom.it.send;

import dev.mailroom.it.support.CrashScenario;
import dev.mailroom.it.support.CrashScenario.Stop;
import dev.mailroom.it.support.ItEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The server (worker and embedded broker alike) stopped in the middle of a 1,000-job batch, by {@code kill -9}
 * as in a crash and gracefully, then started again: no job is lost and none is sent twice, counted at the SMTP
 * server ({@link CrashScenario}; LibertyIT runs the same body on Open Liberty). Runs last in the h2 execution
 * (alphabetical order), since it restarts the shared server.
 */
@Tag("crash")
class SendPathCrashIT {

    static final int JOBS = 1000;
    /** The h2 server's MAILROOM_CONSUMERS: at most this many calls can be in flight when the process dies. */
    static final int CONSUMERS = ItEnvironment.H2_CONSUMERS;

    /*
     * GRACEFUL failed until the send queues stopped being WildFly core "queue" resources: WildFly destroys those,
     * messages and all, at a graceful shutdown (measured: the journal after the SIGTERM held the deletion of the
     * mail.send binding and one transaction acknowledging the 692 jobs still queued; see
     * server-config/wildfly/send-queue-mail.send.cli and docs/production.md "A graceful stop").
     */
    @ParameterizedTest
    @EnumSource(Stop.class)
    void stoppedMidBatchLosesNothingAndSendsNothingTwice(Stop stop) {
        CrashScenario.stoppedMidBatchLosesNothingAndSendsNothingTwice(ItEnvironment.get(), stop, JOBS, 300, CONSUMERS);
    }

    /**
     * Per-key order's run at its size (200 keys × 10 jobs, every 10th key's 3rd job refused twice, 8 consumers) with
     * a kill -9 in the middle: every key's mails still arrive in order, none twice, none lost.
     */
    @Test
    void keyedJobsKilledMidRunKeepEveryKeyInOrder() {
        CrashScenario.keyedJobsKilledMidRunKeepEveryKeyInOrder(ItEnvironment.get(),
                Integer.getInteger("mailroom.it.order-keys", 200), CONSUMERS);
    }
}
