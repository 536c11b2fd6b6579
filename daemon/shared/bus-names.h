/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* D-Bus names of the API's errors: part of the contract. */
#pragma once

#define BOOST_ERROR_PREFIX          "org.boostd.Boost1.Error."
#define BOOST_ERROR_INVALID_BOOST   BOOST_ERROR_PREFIX "InvalidBoost"
#define BOOST_ERROR_UNKNOWN_GROUP   BOOST_ERROR_PREFIX "UnknownGroup"
#define BOOST_ERROR_NO_SUCH_PROCESS BOOST_ERROR_PREFIX "NoSuchProcess"
#define BOOST_ERROR_TOO_MANY_HOLDS  BOOST_ERROR_PREFIX "TooManyHolds"
#define BOOST_ERROR_NO_SUCH_HOLD    BOOST_ERROR_PREFIX "NoSuchHold"
#define BOOST_ERROR_INVALID_MODE    BOOST_ERROR_PREFIX "InvalidMode"
#define BOOST_ERROR_INVALID_CONFIG  BOOST_ERROR_PREFIX "InvalidConfig"
#define BOOST_ERROR_BACKEND_FAILED  BOOST_ERROR_PREFIX "BackendFailed"
#define BOOST_ERROR_TOO_MANY_SESSIONS BOOST_ERROR_PREFIX "TooManySessions"
#define BOOST_ERROR_NO_SUCH_SESSION BOOST_ERROR_PREFIX "NoSuchSession"
#define BOOST_ERROR_RATE_LIMITED    BOOST_ERROR_PREFIX "RateLimited"
#define BOOST_ERROR_TOO_MANY_AGENTS BOOST_ERROR_PREFIX "TooManyAgents"
#define BOOST_ERROR_TOO_MANY_GAMES  BOOST_ERROR_PREFIX "TooManyGames"
#define BOOST_ERROR_INVALID_ARGS    "org.freedesktop.DBus.Error.InvalidArgs"
#define BOOST_ERROR_ACCESS_DENIED   "org.freedesktop.DBus.Error.AccessDenied"

#define BOOST_BUS_NAME  "org.boostd.Boost1"
#define BOOST_BUS_PATH  "/org/boostd/Boost1"
#define BOOST_BUS_IFACE "org.boostd.Boost1"
/* Hint sessions: BOOST_SESSION_PREFIX/N, interface org.boostd.Session1 */
#define BOOST_SESSION_PREFIX "/org/boostd/Boost1/session"
#define BOOST_SESSION_IFACE  "org.boostd.Session1"
/* boostd-session, the agent in each user's session, on the user's bus */
#define BOOST_AGENT_BUS_NAME  "org.boostd.SessionAgent1"
#define BOOST_AGENT_BUS_PATH  "/org/boostd/SessionAgent1"
#define BOOST_AGENT_BUS_IFACE "org.boostd.SessionAgent1"
