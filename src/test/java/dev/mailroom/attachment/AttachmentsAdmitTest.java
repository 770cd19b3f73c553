package dev.mailroom.attachment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.contract.Attachment;
import dev.mailroom.contract.AttachmentRule;
import dev.mailroom.contract.RejectReason;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The door: sizes over the limits and URLs under no allowed prefix are refused before anything is fetched. */
class AttachmentsAdmitTest {

    private static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final AttachmentSettings SETTINGS = new AttachmentSettings(List.of("https://files.shop.example/mail/"),
            100, 150, Duration.ofSeconds(1), Duration.ofSeconds(1), 3, 0);

    private static Attachment inline(int bytes) {
        return new Attachment("a.bin", "application/octet-stream",
                java.util.Base64.getEncoder().encodeToString(new byte[bytes]), null, null, null);
    }

    private static Attachment byReference(String url, long size) {
        return new Attachment("b.pdf", "application/pdf", null, url, SHA, size);
    }

    static Stream<Arguments> jobs() {
        String listed = "https://files.shop.example/mail/b.pdf";
        return Stream.of(
                Arguments.of(List.of(), null, null),
                Arguments.of(List.of(inline(100)), null, null),
                Arguments.of(List.of(inline(99), inline(1)), null, null),
                Arguments.of(List.of(inline(101)), RejectReason.attachment_too_large,
                        "/attachments/0: 101 bytes; the limit of one attachment is 100 bytes (mailroom.attachments.max-bytes)"),
                Arguments.of(List.of(byReference(listed, 100), inline(51)), RejectReason.attachment_too_large,
                        "/attachments: 151 bytes together; the limit of a job's attachments is 150 bytes (mailroom.attachments.max-job-bytes)"),
                Arguments.of(List.of(byReference(listed, 150)), RejectReason.attachment_too_large, "/attachments/0: 150 bytes"),
                Arguments.of(List.of(byReference(listed, 10)), null, null),
                Arguments.of(List.of(inline(1), byReference("http://127.0.0.1:9990/management", 10)),
                        RejectReason.attachment_not_allowed, "/attachments/1/url: http://127.0.0.1:9990/management is "
                                + "under none of mailroom.attachments.allowed-prefixes (https://files.shop.example/mail/); "
                                + "nothing was fetched"),
                // a size over the limit is said first: it is wrong wherever the file comes from
                Arguments.of(List.of(byReference("https://elsewhere.example/x", 1_000)), RejectReason.attachment_too_large,
                        "/attachments/0: 1000 bytes"));
    }

    @ParameterizedTest(name = "{index}: {1}")
    @MethodSource("jobs")
    void theDoorRefusesWhatIsTooLargeOrFromAnUnlistedSource(List<Attachment> attachments, RejectReason reason,
                                                            String violation) {
        AttachmentRule.Decision d = Attachments.admit(attachments, SETTINGS);
        if (reason == null) {
            assertThat(d).isInstanceOf(AttachmentRule.Allowed.class);
        } else {
            assertThat(d).isInstanceOfSatisfying(AttachmentRule.Refused.class, r -> {
                assertThat(r.reason()).isEqualTo(reason);
                assertThat(r.violation()).startsWith(violation);
            });
        }
    }

    @Test
    void withNoPrefixConfiguredEveryFileByReferenceIsRefused() {
        AttachmentSettings none = new AttachmentSettings(List.of(), 100, 150, Duration.ofSeconds(1), Duration.ofSeconds(1),
                3, 0);
        assertThat(Attachments.admit(List.of(byReference("https://files.shop.example/mail/b.pdf", 1)), none))
                .isInstanceOfSatisfying(AttachmentRule.Refused.class,
                        r -> assertThat(r.violation()).contains("(none configured)"));
    }

    @Test
    void anInlineSizeIsTheDecodedOne() {
        assertThat(AttachmentRule.sizeOf(inline(0))).isZero();
        assertThat(AttachmentRule.sizeOf(inline(1))).isEqualTo(1);
        assertThat(AttachmentRule.sizeOf(inline(2))).isEqualTo(2);
        assertThat(AttachmentRule.sizeOf(inline(3))).isEqualTo(3);
        assertThat(AttachmentRule.sizeOf(inline(1000))).isEqualTo(1000);
    }
}
