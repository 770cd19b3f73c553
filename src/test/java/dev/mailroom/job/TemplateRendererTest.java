package dev.mailroom.job;

import dev.mailroom.contract.RejectReason;

import dev.mailroom.job.ParseResult.Parsed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class TemplateRendererTest {

    @TempDir
    Path tmp;

    private static SendJob templateJob(String templateId, Map<String, Object> variables) {
        return new SendJob(1, "m-1", null, null, null, null, "a@example.com", List.of("b@example.com"),
                null, null, null, null, null, null, templateId, variables, null, null, null, null, null, null);
    }

    private Path templates() throws IOException {
        return Files.createDirectories(tmp.resolve("templates"));
    }

    private static void write(Path dir, String id, String json) throws IOException {
        Files.writeString(dir.resolve(id + ".json"), json, StandardCharsets.UTF_8);
    }

    private static TemplateException failure(TemplateRenderer renderer, SendJob job) {
        TemplateException e = catchThrowableOfType(TemplateException.class, () -> renderer.render(job));
        assertThat(e).as("expected a TemplateException").isNotNull();
        return e;
    }

    @Test
    void renderedContentPassesThrough() throws Exception {
        SendJob job = new SendJob(1, "m-1", null, null, null, null, "a@example.com", List.of("b@example.com"),
                null, null, null, "Subject {{x}}", "Text {{x}}", "<p>{{x}}</p>", null, null, null, null, null, null, null, null);
        RenderedContent c = new TemplateRenderer().render(job);
        // no substitution on rendered content: the producer's text is final
        assertThat(c).isEqualTo(new RenderedContent("Subject {{x}}", "Text {{x}}", "<p>{{x}}</p>"));
    }

    @Test
    void bundledPasswordResetTemplateRenders() throws Exception {
        Map<String, Object> vars = Map.of(
                "product", "Mailroom",
                "user", Map.of("name", "Ada <Admin>"),
                "expires_in_minutes", 30,
                "reset_url", "https://example.com/reset?t=abc&u=1");
        RenderedContent c = new TemplateRenderer().render(templateJob("password-reset", vars));

        assertThat(c.subject()).isEqualTo("Reset your Mailroom password");
        assertThat(c.text())
                .startsWith("Hello Ada <Admin>,\n")
                .contains("within 30 minutes:\n\nhttps://example.com/reset?t=abc&u=1\n")
                .doesNotContain("{{");
        assertThat(c.html())
                .contains("<p>Hello Ada &lt;Admin&gt;,</p>")
                .contains("<a href=\"https://example.com/reset?t=abc&amp;u=1\">")
                .doesNotContain("{{");
    }

    @Test
    void substitutesDottedPathsAndEscapesOnlyTheHtmlPart() throws Exception {
        Path dir = templates();
        write(dir, "order", """
                {"subject": "Order {{order.id}} for {{ name }}",
                 "text": "Dear {{name}}, you paid {{order.total.amount}} {{order.total.currency}} (gift: {{order.gift}}).",
                 "html": "<p>Dear {{name}}, you paid {{order.total.amount}} {{order.total.currency}}</p>"}
                """);
        Map<String, Object> vars = Map.of(
                "name", "Tom & \"Jerry\" <'x'>",
                "order", Map.of("id", 7L, "gift", false,
                        "total", Map.of("amount", new BigDecimal("12.50"), "currency", "EUR")));

        RenderedContent c = new TemplateRenderer(dir).render(templateJob("order", vars));

        assertThat(c.subject()).isEqualTo("Order 7 for Tom & \"Jerry\" <'x'>");
        assertThat(c.text()).isEqualTo("Dear Tom & \"Jerry\" <'x'>, you paid 12.50 EUR (gift: false).");
        assertThat(c.html()).isEqualTo("<p>Dear Tom &amp; &quot;Jerry&quot; &lt;&#39;x&#39;&gt;, you paid 12.50 EUR</p>");
    }

    @Test
    void substitutedValuesAreNotExpandedAgain() throws Exception {
        Path dir = templates();
        write(dir, "echo", "{\"subject\": \"s\", \"text\": \"{{a}}|{{b}}\"}");
        RenderedContent c = new TemplateRenderer(dir).render(templateJob("echo", Map.of("a", "{{b}}", "b", "B")));
        assertThat(c.text()).isEqualTo("{{b}}|B");
    }

    @Test
    void variablesCannotInjectHeadersThroughTheSubject() throws Exception {
        Path dir = templates();
        write(dir, "hdr", "{\"subject\": \"Hi {{name}}\", \"text\": \"{{name}}\"}");
        RenderedContent c = new TemplateRenderer(dir)
                .render(templateJob("hdr", Map.of("name", "Ada\r\nBcc: victim@example.net")));
        assertThat(c.subject()).isEqualTo("Hi Ada  Bcc: victim@example.net");
        assertThat(c.text()).isEqualTo("Ada\r\nBcc: victim@example.net"); // bodies keep line breaks
    }

    @Test
    void missingTemplate() {
        TemplateException e = failure(new TemplateRenderer(), templateJob("no-such-template", Map.of()));
        assertThat(e.reason()).isEqualTo(RejectReason.missing_template);
        assertThat(e.detail()).contains("no template 'no-such-template'");
    }

    @Test
    void missingVariablesAreAllNamedInOrderOfUse() {
        TemplateException e = failure(new TemplateRenderer(),
                templateJob("password-reset", Map.of("product", "Mailroom", "user", Map.of("id", 1))));
        assertThat(e.reason()).isEqualTo(RejectReason.missing_template_variable);
        assertThat(e.detail()).isEqualTo("template 'password-reset' needs variables the job does not give: "
                + "user.name, expires_in_minutes, reset_url");
    }

    @Test
    void anObjectWhereAValueIsExpectedCountsAsMissing() throws Exception {
        Path dir = templates();
        write(dir, "t", "{\"subject\": \"s\", \"text\": \"{{user}} {{list}}\"}");
        TemplateException e = failure(new TemplateRenderer(dir),
                templateJob("t", Map.of("user", Map.of("name", "Ada"), "list", List.of("a"))));
        assertThat(e.reason()).isEqualTo(RejectReason.missing_template_variable);
        assertThat(e.detail()).endsWith(": user, list");
    }

    @Test
    void aNameThatIsAMethodOfTheVariablesMapIsStillMissing() throws Exception {
        // a reflective lookup would print Map.isEmpty() / Map.size() here
        Path dir = templates();
        write(dir, "t", "{\"subject\": \"s\", \"text\": \"{{empty}} {{size}} {{class}} {{names}} {{toString}}\"}");
        TemplateException e = failure(new TemplateRenderer(dir), templateJob("t", Map.of()));
        assertThat(e.detail()).endsWith(": empty, size, class, names, toString");
    }

    @Test
    void nullVariableFromTheParserCountsAsMissing() throws Exception {
        Path dir = templates();
        write(dir, "t", "{\"subject\": \"s\", \"text\": \"{{name}}\"}");
        ParseResult parsed = new JobParser().parse("""
                {"schema_version":1,"message_id":"m","from":"a@example.com","to":["b@example.com"],
                 "template_id":"t","variables":{"name":null}}""".getBytes(StandardCharsets.UTF_8));
        SendJob job = ((Parsed) parsed).job();
        TemplateException e = failure(new TemplateRenderer(dir), job);
        assertThat(e.reason()).isEqualTo(RejectReason.missing_template_variable);
        assertThat(e.detail()).endsWith(": name");
    }

    static Stream<String> idsThatAreNotTemplateIdsAreMissingTemplates() {
        return Stream.of("../secret", "..\\secret", "sub/secret", "/etc/passwd", "", "a b", "x".repeat(101));
    }

    @ParameterizedTest
    @MethodSource
    void idsThatAreNotTemplateIdsAreMissingTemplates(String id) throws Exception {
        Path dir = templates();
        // a real template one level up: a traversal that worked would render it
        write(tmp, "secret", "{\"subject\": \"secret\", \"text\": \"secret\"}");
        Files.createDirectories(dir.resolve("sub"));
        write(dir.resolve("sub"), "secret", "{\"subject\": \"secret\", \"text\": \"secret\"}");

        TemplateException e = failure(new TemplateRenderer(dir), templateJob(id, Map.of()));
        assertThat(e.reason()).isEqualTo(RejectReason.missing_template);
        assertThat(e.detail()).contains("is not a valid template id");
    }

    @Test
    void theTemplatesDirectoryOverridesTheClasspath() throws Exception {
        Path dir = templates();
        write(dir, "password-reset", "{\"subject\": \"Local {{product}}\", \"text\": \"local\"}");
        RenderedContent c = new TemplateRenderer(dir).render(templateJob("password-reset", Map.of("product", "P")));
        assertThat(c).isEqualTo(new RenderedContent("Local P", "local", null));
    }

    @Test
    void theClasspathIsTheFallbackWhenTheDirectoryLacksTheTemplate() throws Exception {
        Path dir = templates(); // empty
        RenderedContent c = new TemplateRenderer(dir).render(templateJob("password-reset", Map.of(
                "product", "P", "user", Map.of("name", "N"), "expires_in_minutes", 5, "reset_url", "u")));
        assertThat(c.subject()).isEqualTo("Reset your P password");
    }

    @Test
    void templatesAreCachedButMissingOnesAreLookedUpAgain() throws Exception {
        Path dir = templates();
        TemplateRenderer renderer = new TemplateRenderer(dir);
        assertThat(failure(renderer, templateJob("later", Map.of())).reason()).isEqualTo(RejectReason.missing_template);

        write(dir, "later", "{\"subject\": \"v1\", \"text\": \"t\"}");
        assertThat(renderer.render(templateJob("later", Map.of())).subject()).isEqualTo("v1");

        write(dir, "later", "{\"subject\": \"v2\", \"text\": \"t\"}");
        assertThat(renderer.render(templateJob("later", Map.of())).subject()).isEqualTo("v1"); // cached
        assertThat(new TemplateRenderer(dir).render(templateJob("later", Map.of())).subject()).isEqualTo("v2");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "not json",
            "[\"subject\"]",
            "{\"subject\": \"s\"}",
            "{\"text\": \"t\"}",
            "{\"subject\": \"s\", \"text\": \"t\", \"from\": \"x@y.z\"}",
            "{\"subject\": 1, \"text\": \"t\"}",
            "{\"subject\": \"s\", \"text\": \"Hi {{ first name }}\"}",
            "{\"subject\": \"a\\nb\", \"text\": \"t\"}",
            // Mustache beyond {{name}}: refused when compiled, so every value goes through the escaping
            "{\"subject\": \"s\", \"html\": \"{{{first}}}\"}",
            "{\"subject\": \"s\", \"html\": \"{{&first}}\"}",
            "{\"subject\": \"s\", \"text\": \"{{#first}}x{{/first}}\"}",
            "{\"subject\": \"s\", \"text\": \"{{^first}}x{{/first}}\"}",
            "{\"subject\": \"s\", \"text\": \"{{>first}}\"}",
            "{\"subject\": \"s\", \"text\": \"{{! note }}\"}",
            "{\"subject\": \"s\", \"text\": \"{{=<% %>=}}<% first %>\"}",
            "{\"subject\": \"s\", \"text\": \"Hi {{first\"}"})
    void aBrokenTemplateFileIsADeploymentFaultNotAJobFault(String content) throws Exception {
        Path dir = templates();
        write(dir, "broken", content);
        assertThatThrownBy(() -> new TemplateRenderer(dir).render(templateJob("broken", Map.of("first", "x"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broken.json");
    }

    /** Every Mustache tag kind but {@code {{name}}} is refused when the template is compiled, and named. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "{{#first}}x{{/first}}  | {{#first}} (a section)",
        "{{^first}}x{{/first}}  | {{^first}} (an inverted section)",
        "{{$first}}x{{/first}}  | {{$first}} (a block)",
        "{{?first}}x{{/first}}  | {{?first}} (a block check)",
        "{{>first}}             | {{>first}} (a partial)",
        "{{>*first}}            | {{>*first}} (a dynamic partial)",
        "{{<first}}{{/first}}   | {{<first}} (inheritance)",
        "{{%first}}             | {{%first}} (a pragma)",
        "{{! note }}            | {{!...}} (a comment)",
        "{{{first}}}            | {{{first}}} (an unescaped value)",
        "{{&first}}             | (an unescaped value)",
        "Hi {{ first name }}    | {{first name}}",
    })
    void eachTagKindButAPlaceholderIsRefusedByName(String text, String named) throws Exception {
        Path dir = templates();
        write(dir, "tags", "{\"subject\": \"s\", \"text\": \"" + text + "\"}");
        assertThatThrownBy(() -> new TemplateRenderer(dir).render(templateJob("tags", Map.of("first", "x"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(named)
                .hasMessageContaining("only {{name}} and {{path.to.name}} placeholders are allowed");
        write(dir, "plain", "{\"subject\": \"s\", \"text\": \"Hi {{first}}, {{ first }}\"}");
        assertThat(new TemplateRenderer(dir).render(templateJob("plain", Map.of("first", "x"))).text())
                .isEqualTo("Hi x, x");
    }

    @Test
    void aJobWithoutContentOrTemplateIsAProgrammingError() {
        SendJob job = templateJob(null, Map.of());
        assertThatThrownBy(() -> new TemplateRenderer().render(job)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parserAndRendererTogether() throws Exception {
        ParseResult parsed = new JobParser().parse("""
                {"schema_version":1,"message_id":"m","from":"a@example.com","to":["b@example.com"],
                 "template_id":"password-reset",
                 "variables":{"product":"Shop","user":{"name":"Ada"},"expires_in_minutes":15,"reset_url":"https://x/r"}}
                """.getBytes(StandardCharsets.UTF_8));
        RenderedContent c = new TemplateRenderer().render(((Parsed) parsed).job());
        assertThat(c.subject()).isEqualTo("Reset your Shop password");
        assertThat(c.text()).contains("Hello Ada,").contains("within 15 minutes").contains("https://x/r");
    }

    @Test
    void numbersRenderAsWritten() throws Exception {
        Path dir = templates();
        write(dir, "n", "{\"subject\": \"s\", \"text\": \"{{a}} {{b}} {{c}}\"}");
        Map<String, Object> vars = new LinkedHashMap<>();
        vars.put("a", new BigDecimal("12.50"));
        vars.put("b", new BigDecimal("1E+3"));
        vars.put("c", new BigDecimal("1E+1000")); // not expanded into a thousand digits
        assertThat(new TemplateRenderer(dir).render(templateJob("n", vars)).text()).isEqualTo("12.50 1000 1E+1000");
    }
}
