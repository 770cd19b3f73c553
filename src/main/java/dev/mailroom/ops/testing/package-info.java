/**
 * For tests only, never in the production WAR: a clock tests move forward instead of sleeping and the endpoint
 * that moves it ({@code PUT /api/v1/testing/clock}), and a search of every column of the schema for a text
 * ({@code GET /api/v1/testing/where}). The build leaves this package out of {@code mailroom.war}
 * and packs it into {@code mailroom-testing.war} (classifier {@code testing}), which the integration tests
 * deploy; {@code ProductionWarIT} checks the production WAR's entries.
 */
package dev.mailroom.ops.testing;
