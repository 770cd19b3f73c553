package dev.mailroom.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecordingMailroomClientTest {

    @Test
    void keepsEverySendWithItsQueueAndAnswersTheMessageId() {
        RecordingMailroomClient mail = new RecordingMailroomClient();
        MailJob reset = MailJob.to("alice@example.com").from("noreply@example.com").template("password-reset").build();
        MailJob bulk = MailJob.to("bob@example.com").cc("carol@example.com").from("noreply@example.com")
                .subject("News").text("...").queue("mail.send.bulk")
                .unsubscribe("https://example.com/unsubscribe", null).build();

        assertThat(mail.send(reset)).isEqualTo(reset.messageId());
        mail.send(bulk);
        mail.send(reset);

        assertThat(mail.jobs()).containsExactly(reset, bulk, reset);
        assertThat(mail.sends()).extracting(RecordingMailroomClient.Sent::queue)
                .containsExactly("mail.send", "mail.send.bulk", "mail.send");
        assertThat(mail.jobsTo("carol@example.com")).containsExactly(bulk);
        assertThat(mail.jobsTo("alice@example.com")).containsExactly(reset, reset);
        mail.clear();
        assertThat(mail.jobs()).isEmpty();
    }
}
