package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.Incoming;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.SendJob;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link KeyOrders} on a job without a key: the hot path reads and writes nothing more for it. */
class KeyOrdersTest {

    @Test
    void aJobWithoutAKeyPassesBothStepsWithoutTouchingTheLedger() {
        KeyOrders keys = new KeyOrders(); // no ledger, executor, settings or metrics: any use of one would throw
        byte[] body = """
                {"schema_version": 1, "message_id": "plain-1", "from": "noreply@example.com", "to": ["a@example.com"],
                 "subject": "s", "text": "t"}""".getBytes(StandardCharsets.UTF_8);
        SendJob job = ((ParseResult.Parsed) new JobParser().parse(body)).job();
        Incoming in = new Incoming("mail.send", "ID:1", false, 1, body, true, null, null, null, null, null);

        assertThat(keys.waits(in, job)).isFalse();
        keys.after(in, job);
        keys.after("mail.send", "plain-1", null);
    }
}
