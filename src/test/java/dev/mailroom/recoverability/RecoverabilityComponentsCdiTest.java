package dev.mailroom.recoverability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.platform.ClockProducer;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.provider.registry.ProviderProducer;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.sandbox.SandboxProvider;
import dev.mailroom.testsupport.SystemProperties;
import io.smallrye.config.inject.ConfigExtension;
import java.time.Duration;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** CDI component test (Weld SE): the recoverability core as the server builds it from MicroProfile Config. */
class RecoverabilityComponentsCdiTest {

    private final SystemProperties properties = new SystemProperties();

    @AfterEach
    void restoreProperties() {
        properties.restore();
    }

    private void set(String key, String value) {
        properties.set(key, value);
    }

    private static WeldContainer boot() {
        return new Weld("recoverability-components-" + System.nanoTime())
                .disableDiscovery()
                .addExtension(new ConfigExtension())
                .addBeanClasses(RecoverabilityComponents.class, MailroomConfig.class, ProviderProducer.class,
                        ClockProducer.class, SandboxProvider.class)
                .initialize();
    }

    @Test
    void perQueuePolicyComesFromConfigAndOtherQueuesKeepTheDefaults() {
        set("mailroom.policy.mail.send.bulk.transient.delays", "2s,4s");
        try (WeldContainer cdi = boot()) {
            RecoverabilityComponents.Policies policies = cdi.select(RecoverabilityComponents.Policies.class).get();
            assertThat(policies.forQueue("mail.send.bulk").of(FailureClass.TRANSIENT).delays())
                    .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(4));
            assertThat(policies.forQueue("mail.send").of(FailureClass.TRANSIENT).delays())
                    .isEqualTo(RetryPolicy.defaults().of(FailureClass.TRANSIENT).delays());
        }
    }

    @Test
    void theClassifierUsesTheConfiguredHttpProfilesTable() {
        set("mailroom.http.profile", "resend");
        try (WeldContainer cdi = boot()) {
            FailureClassifier classifier = cdi.select(FailureClassifier.class).get();
            ProviderResponse validation = new ProviderResponse(ProviderResponse.Status.REJECTED, "http", "422",
                    "validation_error", "{\"name\":\"validation_error\"}", null, null, null);
            assertThat(classifier.classify(validation).failureClass()).isEqualTo(FailureClass.POISON);
            ProviderResponse teapot = new ProviderResponse(ProviderResponse.Status.REJECTED, "http", "418",
                    null, "I'm a teapot", null, null, null);
            assertThat(classifier.classify(teapot).failureClass()).isEqualTo(FailureClass.UNKNOWN);
        }
    }

    @Test
    void theRateLimiterIsTheActiveProvidersWithItsConfiguredCeiling() {
        set("mailroom.rate-limit.sandbox.max-per-second", "7");
        try (WeldContainer cdi = boot()) {
            AimdRateLimiter limiter = cdi.select(AimdRateLimiter.class).get();
            assertThat(limiter.settings().maxPerSecond()).isEqualTo(7.0);
            assertThat(limiter.rate()).isEqualTo(7.0);
            limiter.onThrottle();
            assertThat(limiter.rate()).isEqualTo(3.5);
        }
    }
}
