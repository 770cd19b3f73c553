package dev.mailroom.job;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.settings.CheckedAtBoot;
import dev.mailroom.platform.settings.SettingsReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import org.eclipse.microprofile.config.Config;

/** The job contract's plain (container-free) parts, built once from configuration, at deployment. */
@ApplicationScoped
public class JobComponents implements CheckedAtBoot {

    @Inject
    Config config;
    @Inject
    Instance<ValidityWindow> validity;
    @Inject
    Instance<TemplateRenderer> renderer;
    @Inject
    Instance<UnsubscribeRequirement> unsubscribe;
    @Inject
    Instance<JobRetentionPolicy.Settings> retention;
    @Inject
    Instance<SendAtHorizon> sendAtHorizon;
    @Inject
    Instance<KeyOrderSettings> keyOrder;

    @Override
    public void checkSettings() {
        validity.get().check(config.getPropertyNames());
        renderer.get();
        unsubscribe.get().required(dev.mailroom.contract.UnsubscribeRule.BULK_QUEUE);
        retention.get().interval();
        sendAtHorizon.get().horizon();
        keyOrder.get().afterDeadLetter(dev.mailroom.contract.UnsubscribeRule.BULK_QUEUE);
    }

    @Produces
    @Singleton
    KeyOrderSettings keyOrderSettings(MailroomConfig mailroom, Config config) {
        return KeyOrderSettings.read(new SettingsReader(key -> config.getOptionalValue(key, String.class)),
                mailroom.queues());
    }

    @Produces
    @Singleton
    SendAtHorizon sendAtHorizon(Config config) {
        return SendAtHorizon.read(new SettingsReader(key -> config.getOptionalValue(key, String.class)));
    }

    @Produces
    @Singleton
    UnsubscribeRequirement unsubscribeRequirement(MailroomConfig mailroom, Config config) {
        return UnsubscribeRequirement.read(
                new SettingsReader(key -> config.getOptionalValue(key, String.class)), mailroom.queues());
    }

    @Produces
    @Singleton
    JobParser parser(MailroomConfig config) {
        return new JobParser(config.jobMaxBytes());
    }

    @Produces
    @Singleton
    ValidityWindow validityWindow(Config config) {
        return new ValidityWindow(key -> config.getOptionalValue(key, String.class));
    }

    @Produces
    @Singleton
    JobRetentionPolicy.Settings retentionSettings(Config config) {
        return JobRetentionPolicy.Settings.read(new SettingsReader(key -> config.getOptionalValue(key, String.class)),
                config.getPropertyNames());
    }

    @Produces
    @Singleton
    TemplateRenderer renderer(MailroomConfig config) {
        return new TemplateRenderer(config.templatesDir().map(Path::of).orElse(null));
    }
}
