# An ActiveMQ Artemis broker for Mailroom's production topology (docker/compose.yaml): the distribution the
# build unpacks from Maven Central (target/apache-artemis-<version>, see pom.xml artemis.dist.version) plus
# server-config/artemis; the instance is created at first start by create-broker.sh (artemis-entrypoint.sh).
#   mvn package -DskipTests
#   docker build -f docker/artemis.Dockerfile -t mailroom-artemis .
FROM eclipse-temurin:17-jre
COPY target/apache-artemis-2.40.0 /opt/artemis
COPY server-config/artemis /opt/mailroom/server-config/artemis
COPY docker/artemis-entrypoint.sh /opt/mailroom/artemis-entrypoint.sh
RUN mkdir -p /var/lib/artemis-instance
EXPOSE 61616 8161
ENTRYPOINT ["bash", "/opt/mailroom/artemis-entrypoint.sh"]
