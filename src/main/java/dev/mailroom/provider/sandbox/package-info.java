/** The sandbox provider of the embedded default: accepts every mail and keeps it in an outbox table. */
package dev.mailroom.provider.sandbox;
