package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mailroom.contract.Attachment;
import dev.mailroom.contract.RejectReason;
import dev.mailroom.job.ParseResult.Parsed;
import dev.mailroom.job.ParseResult.Rejected;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** schema_version 2 and its attachments, as the server's parser reads them; version 1 jobs read as before. */
class AttachmentContractTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private final JobParser parser = new JobParser();

    private static Map<String, Object> inline() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("filename", "invoice.pdf");
        a.put("content_type", "application/pdf");
        a.put("content_base64", "JVBERi0xLjQK");
        return a;
    }

    private static Map<String, Object> byReference() {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("filename", "ticket.ics");
        a.put("content_type", "text/calendar; method=REQUEST; charset=UTF-8");
        a.put("url", "https://files.shop.example/t/1.ics");
        a.put("sha256", SHA);
        a.put("size", 4);
        return a;
    }

    private static Map<String, Object> job(int version, List<Map<String, Object>> attachments) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("schema_version", version);
        job.put("message_id", "msg-1");
        job.put("from", "noreply@example.com");
        job.put("to", List.of("ada@example.org"));
        job.put("subject", "Hello");
        job.put("text", "Hi there");
        if (attachments != null) {
            job.put("attachments", attachments);
        }
        return job;
    }

    private ParseResult parse(Object json) {
        try {
            return parser.parse(JSON.writeValueAsBytes(json));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aVersionTwoJobWithoutNewFieldsReadsLikeVersionOne() {
        assertThat(parse(job(2, null))).isInstanceOfSatisfying(Parsed.class, p -> {
            assertThat(p.job().schemaVersion()).isEqualTo(2);
            assertThat(p.job().attachments()).isEmpty();
        });
        assertThat(parse(job(1, null))).isInstanceOfSatisfying(Parsed.class,
                p -> assertThat(p.job().attachments()).isEmpty());
    }

    @Test
    void aVersionTwoJobCarriesItsAttachmentsInOrder() {
        assertThat(parse(job(2, List.of(inline(), byReference())))).isInstanceOfSatisfying(Parsed.class, p ->
                assertThat(p.job().attachments()).containsExactly(
                        new Attachment("invoice.pdf", "application/pdf", "JVBERi0xLjQK", null, null, null),
                        new Attachment("ticket.ics", "text/calendar; method=REQUEST; charset=UTF-8", null,
                                "https://files.shop.example/t/1.ics", SHA, 4L)));
    }

    @Test
    void aVersionOneJobWithAttachmentsIsRefusedNamingTheFieldAndTheVersion() {
        assertThat(parse(job(1, List.of(inline())))).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
            assertThat(r.detail()).isEqualTo("/attachments: needs schema_version 2 (this job declares schema_version 1)");
            assertThat(r.messageId()).isEqualTo("msg-1");
        });
    }

    @Test
    void aVersionTheBuildDoesNotReadIsStillUnsupported() {
        assertThat(parse(job(4, List.of(inline())))).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.unsupported_schema_version);
            assertThat(r.detail()).isEqualTo("schema_version 4 is not supported; this consumer reads schema_version 1 to 3");
        });
    }

    private static Arguments bad(String name, Consumer<Map<String, Object>> change, String detail) {
        return Arguments.of(name, change, detail);
    }

    static Stream<Arguments> badAttachments() {
        return Stream.of(
                bad("both inline and by reference", a -> a.put("content_base64", "AAAA"),
                        "/attachments/0: has both content_base64 (inline) and url (by reference); an attachment is one or the other"),
                bad("neither", a -> {
                    a.remove("url");
                    a.remove("sha256");
                    a.remove("size");
                }, "/attachments/0: has no content: give content_base64 (inline) or url with sha256 and size (by reference)"),
                bad("a url without its checksum", a -> a.remove("sha256"),
                        "/attachments/0: an attachment by reference (url) needs sha256 and size"),
                bad("a url without its size", a -> a.remove("size"),
                        "/attachments/0: an attachment by reference (url) needs sha256 and size"),
                bad("a checksum in upper case", a -> a.put("sha256", SHA.toUpperCase()),
                        "/attachments/0/sha256: is not a SHA-256 (64 lower-case hex digits)"),
                bad("a negative size", a -> a.put("size", -1), "/attachments/0/size: must have a minimum value of 0"),
                bad("an ftp url", a -> a.put("url", "ftp://files.shop.example/x"),
                        "/attachments/0/url: is not an http or https URL without spaces"),
                bad("a path in the filename", a -> a.put("filename", "../etc/passwd"),
                        "/attachments/0/filename: contains a path separator (/ or \\)"),
                bad("a line break in the filename", a -> a.put("filename", "a\r\nBcc: x@evil.example"),
                        "/attachments/0/filename: contains a control character (such as CR or LF)"),
                bad("no content type", a -> a.remove("content_type"), "/attachments/0/content_type: is required"),
                bad("a content type that is no MIME type", a -> a.put("content_type", "pdf"),
                        "/attachments/0/content_type: is not a MIME type (type/subtype, optionally followed by ; name=value parameters)"),
                bad("an unknown property", a -> a.put("disposition", "inline"),
                        "/attachments/0/disposition: is not a property of the job contract"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badAttachments")
    void aMalformedAttachmentIsASchemaViolationNamingIt(String name, Consumer<Map<String, Object>> change, String detail) {
        Map<String, Object> a = byReference();
        change.accept(a);
        assertThat(parse(job(2, List.of(a)))).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
            assertThat(r.detail()).isEqualTo(detail);
        });
    }

    static Stream<Arguments> badInline() {
        return Stream.of(
                Arguments.of("not the base64 alphabet", "JVBERi0x*LjQK", "/attachments/0/content_base64: is not base64 (the standard alphabet A-Z a-z 0-9 + /, padded with =)"),
                Arguments.of("a length that is no multiple of four", "JVBERi0xLjQ", "/attachments/0/content_base64: does not decode as base64"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInline")
    void inlineContentMustDecode(String name, String content, String detail) {
        Map<String, Object> a = inline();
        a.put("content_base64", content);
        assertThat(parse(job(2, List.of(a)))).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.reason()).isEqualTo(RejectReason.schema_violation);
            assertThat(r.detail()).startsWith(detail);
        });
    }

    @Test
    void anEmptyListOrMoreThanTwentyIsRefused() {
        assertThat(parse(job(2, List.of()))).isInstanceOfSatisfying(Rejected.class,
                r -> assertThat(r.detail()).startsWith("/attachments: "));
        assertThat(parse(job(2, java.util.Collections.nCopies(21, inline())))).isInstanceOfSatisfying(Rejected.class,
                r -> assertThat(r.detail()).startsWith("/attachments: "));
    }
}
