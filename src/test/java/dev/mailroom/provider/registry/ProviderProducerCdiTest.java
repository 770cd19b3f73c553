package dev.mailroom.provider.registry;

import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.SendCheckpoint;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.mailroom.platform.ClockProducer;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.provider.sandbox.SandboxProvider;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import dev.mailroom.contract.RejectReason;
import dev.mailroom.job.JobComponents;
import dev.mailroom.testsupport.SmtpTestServer;
import dev.mailroom.testsupport.SystemProperties;
import io.smallrye.config.inject.ConfigExtension;
import java.time.Duration;
import java.util.List;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CDI component test (Weld SE, no server): configuration as MicroProfile Config reads it, through the
 * producers, to a provider that really talks to a loopback SMTP or HTTP server.
 */
class ProviderProducerCdiTest {

    private final SystemProperties properties = new SystemProperties();

    @AfterEach
    void restoreProperties() {
        properties.restore();
    }

    private void set(String key, String value) {
        properties.set(key, value);
    }

    private static WeldContainer boot() {
        return new Weld("provider-producer-test-" + System.nanoTime())
                .disableDiscovery()
                .addExtension(new ConfigExtension())
                .addBeanClasses(MailroomConfig.class, ProviderProducer.class, ClockProducer.class,
                        SandboxProvider.class, JobComponents.class)
                .initialize();
    }

    private static OutboundMail mail(String key) {
        return new OutboundMail("m-" + key, key, "noreply@example.com", List.of("alice@example.com"), null, null,
                null, "Hello", "Hi", null, null, null, null, null, null);
    }

    @Test
    void defaultIsTheSandbox() {
        try (WeldContainer cdi = boot()) {
            MailProvider p = cdi.select(MailProvider.class).get();
            assertThat(p.name()).isEqualTo("sandbox");
        }
    }

    @Test
    void smtpProviderIsBuiltFromConfigAndSendsToTheConfiguredServer() {
        try (SmtpTestServer smtp = SmtpTestServer.start()) {
            set("mailroom.provider", "smtp");
            set("mailroom.smtp.port", String.valueOf(smtp.port()));
            set("mailroom.smtp.starttls", "none");
            set("mailroom.smtp.message-id-domain", "cdi.test");
            try (WeldContainer cdi = boot()) {
                MailProvider p = cdi.select(MailProvider.class).get();
                assertThat(p.name()).isEqualTo("smtp");
                assertThat(p.dedupesByIdempotencyKey()).isFalse();

                ProviderResponse r = p.send(mail("key-1"), SendCheckpoint.NONE);

                assertThat(r.status()).isEqualTo(ProviderResponse.Status.ACCEPTED);
                assertThat(smtp.awaitReceived(1, Duration.ofSeconds(10))).isTrue();
                assertThat(smtp.received().get(0).messageId()).endsWith("@cdi.test>");
            }
        }
    }

    @Test
    void httpProviderUsesTheConfiguredProfileKeyAndOverrides() {
        WireMockServer http = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        http.start();
        try {
            http.stubFor(post(urlEqualTo("/emails")).willReturn(aResponse().withStatus(200)
                    .withHeader("Content-Type", "application/json").withBody("{\"id\":\"re_123\"}")));
            set("mailroom.provider", "http");
            set("mailroom.http.profile", "resend");
            set("mailroom.http.base-url", "http://127.0.0.1:" + http.port());
            set("mailroom.http.api-key", "secret-key");
            set("mailroom.http.idempotency-header", "X-Dedupe");
            try (WeldContainer cdi = boot()) {
                MailProvider p = cdi.select(MailProvider.class).get();
                ProviderResponse r = p.send(mail("key-2"), SendCheckpoint.NONE);

                assertThat(r.status()).isEqualTo(ProviderResponse.Status.ACCEPTED);
                assertThat(r.providerMessageId()).isEqualTo("re_123");
                http.verify(1, postRequestedFor(urlEqualTo("/emails"))
                        .withHeader("Authorization", equalTo("Bearer secret-key"))
                        .withHeader("X-Dedupe", equalTo("key-2")));
            }
        } finally {
            http.stop();
        }
    }

    @Test
    void anUnknownProviderNameFailsNamingTheChoices() {
        set("mailroom.provider", "carrier-pigeon");
        try (WeldContainer cdi = boot()) {
            assertThatThrownBy(() -> cdi.select(MailProvider.class).get().name())
                    .hasStackTraceContaining("sandbox, smtp or http")
                    .hasStackTraceContaining("carrier-pigeon");
        }
    }

    @Test
    void theParserTakesItsSizeLimitFromConfig() {
        set("mailroom.job.max-bytes", "100");
        try (WeldContainer cdi = boot()) {
            JobParser parser = cdi.select(JobParser.class).get();
            ParseResult r = parser.parse(new byte[101]);
            assertThat(r).isInstanceOfSatisfying(ParseResult.Rejected.class,
                    rej -> assertThat(rej.reason()).isEqualTo(RejectReason.too_large));
        }
    }
}
