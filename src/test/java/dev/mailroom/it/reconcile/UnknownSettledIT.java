package dev.mailroom.it.reconcile;

import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Webhooks;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An unknown send settled by its events on the real server (H2 and PostgreSQL): a job that ended {@code unknown} (the
 * relay took the mail but answered after the read timeout, as in {@code UnknownSendSmtpIT}) is settled by the
 * provider's signed delivered event, matched by the job's message_id ({@link Webhooks}; LibertyIT runs the same body).
 */
@Tag("smtp")
class UnknownSettledIT {

    @Test
    void an_unknown_job_is_settled_by_its_signed_delivered_event() throws Exception {
        Webhooks.anUnknownSendIsSettledByItsSignedDeliveredEvent(ItEnvironment.get());
    }
}
