#!/usr/bin/env python3
"""Writes the field-failure regression traces: for each public SDK issue, a recording of the failure as an app
made it (broken.jsonl) and of the same scenario done right (fixed.jsonl). Written by us from what the issue
describes, not copied from it. Run from this directory; the files are committed, this script says how they came."""
import json, os

APP = "App conform-app-code"


class Trace:
    def __init__(self):
        self.lines, self.seq, self.t = [], 0, 0.0

    def _at(self):
        s = 1_764_000_000 + self.t
        import datetime
        return datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + \
            "%03dZ" % int(round((s % 1) * 1000))

    def call(self, method, path, reg=None, body=None, status=200, answer=None, duration=50.0, flow=None):
        self.seq += 1
        headers = [["Authorization", APP]]
        if reg:
            headers.append(["pushregistrationid", reg])
        if body is not None:
            headers.append(["Content-Type", "application/json"])
        request = {"method": method, "url": "http://mobile.conform.invalid" + path, "headers": headers,
                   "body": "" if body is None else json.dumps(body, separators=(",", ":"))}
        response = {"status": status, "headers": [["Content-Type", "application/json"]],
                    "body": "" if answer is None else json.dumps(answer, separators=(",", ":"))}
        self.lines.append({"seq": self.seq, "flow": flow or reg or "anonymous", "upstream": "mobile",
                           "startedAt": self._at(), "durationMs": duration, "request": request,
                           "response": response})
        self.t += max(duration, 50.0) / 1000 + 0.05

    def event(self, kind, reg=None, user=None):
        self.seq += 1
        line = {"seq": self.seq, "event": kind, "at": self._at()}
        if reg:
            line["pushRegId"] = reg
        if user:
            line["externalUserId"] = user
        self.lines.append(line)
        self.t += 0.05

    def register(self, reg, token="fcm-token-1", duration=50.0):
        self.call("POST", "/mobile/1/appinstance?ri=true",
                  body={"pushServiceToken": token, "pushServiceType": "Firebase", "os": "Android"},
                  answer={"pushRegId": reg, "pushServiceToken": token, "isPrimary": False}, duration=duration,
                  flow=reg)

    def personalize(self, reg, user, force=False, status=200):
        answer = {"externalUserId": user} if status == 200 else None
        if status >= 500:
            answer = {"requestError": {"serviceException": {"messageId": "GENERAL_ERROR", "text": "unavailable"}}}
        self.call("POST", "/mobile/1/appinstance/%s/personalize?forceDepersonalize=%s&keepAsLead=false"
                  % (reg, "true" if force else "false"), reg=reg,
                  body={"userIdentity": {"externalUserId": user}}, status=status, answer=answer)

    def depersonalize(self, reg, status=200):
        answer = None
        if status >= 500:
            answer = {"requestError": {"serviceException": {"messageId": "GENERAL_ERROR", "text": "unavailable"}}}
        self.call("POST", "/mobile/1/appinstance/%s/depersonalize" % reg, reg=reg, status=status, answer=answer)

    def patch_user(self, reg, status=200, answer=None):
        self.call("PATCH", "/mobile/1/appinstance/%s/user" % reg, reg=reg, body={"firstName": "Ana"},
                  status=status, answer=answer)

    def update_installation(self, reg, status=200, answer=None):
        self.call("PATCH", "/mobile/1/appinstance/%s" % reg, reg=reg, body={"notificationsEnabled": True},
                  status=status, answer=answer or {"pushRegId": reg})

    def read_installation(self, reg):
        self.call("GET", "/mobile/1/appinstance/%s" % reg, reg=reg, answer={"pushRegId": reg})

    def sync(self, reg, listed=(), handed=()):
        body = {"mIDs": list(listed)} if listed else None
        payloads = [{"gcm.notification.messageId": m, "gcm.notification.body": "Hi"} for m in handed]
        self.call("POST", "/mobile/5/messages?platformType=GCM", reg=reg, body=body, answer={"payloads": payloads})

    def write(self, path):
        with open(path, "w") as f:
            for line in self.lines:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")


NO_REGISTRATION = {"requestError": {"serviceException": {"messageId": "NO_REGISTRATION",
                                                         "text": "Registration does not exist"}}}


def android_13(fixed):
    # Personalize from the SDK's init callback: the registration is slow and personalize does not wait for it.
    t = Trace()
    if fixed:
        t.register("reg-a13", duration=3000.0)
        t.event("login", "reg-a13", "ana")
        t.personalize("reg-a13", "ana")
    else:
        t.seq += 1
        start = t.t
        reg_line_index = len(t.lines)
        t.lines.append(None)
        t.t = start + 0.5
        t.event("login", "reg-a13", "ana")
        t.personalize("reg-a13", "ana")
        # The registration that issued reg-a13 started first and answered 3 s after it started.
        end = t.t
        t.t = start
        saved_seq, t.seq = t.seq, reg_line_index
        t.register("reg-a13", duration=3000.0)
        t.lines[reg_line_index] = t.lines.pop()
        t.seq, t.t = saved_seq, max(end, start + 3.1)
    t.update_installation("reg-a13")
    return t


def ios_12(fixed):
    # A personalize the server could not take is forgotten: the identity never reaches the platform.
    t = Trace()
    t.register("reg-i12")
    t.event("login", "reg-i12", "ana")
    t.personalize("reg-i12", "ana", status=503)
    if fixed:
        t.personalize("reg-i12", "ana")
    t.patch_user("reg-i12")
    return t


def ios_15(fixed):
    # An installation update right after personalize answers NO_REGISTRATION; the app goes on with the dead id.
    t = Trace()
    t.register("reg-i15")
    t.event("login", "reg-i15", "ana")
    t.personalize("reg-i15", "ana")
    t.update_installation("reg-i15", status=400, answer=NO_REGISTRATION)
    if fixed:
        t.register("reg-i15-new", token="fcm-token-1")
        t.personalize("reg-i15-new", "ana")
        t.update_installation("reg-i15-new")
    else:
        t.patch_user("reg-i15")
    return t


def rn_66(fixed):
    # Every app update registers a new installation for the same push token: every push reaches the device twice.
    t = Trace()
    t.register("reg-rn66", token="fcm-token-66")
    t.event("login", "reg-rn66", "ana")
    t.personalize("reg-rn66", "ana")
    t.event("appUpdated")
    if fixed:
        t.read_installation("reg-rn66")
    else:
        t.register("reg-rn66-again", token="fcm-token-66")
        t.personalize("reg-rn66-again", "ana", force=True)
    return t


def android_38(fixed):
    # After logout the list of delivered message ids is emptied: sync fetches the delivered pushes again.
    t = Trace()
    t.register("reg-a38")
    t.event("login", "reg-a38", "ana")
    t.personalize("reg-a38", "ana")
    t.sync("reg-a38", handed=["m-1", "m-2"])
    t.sync("reg-a38", listed=["m-1", "m-2"])
    t.event("logout", "reg-a38")
    t.depersonalize("reg-a38")
    if fixed:
        t.sync("reg-a38", listed=["m-1", "m-2"])
    else:
        t.sync("reg-a38", handed=["m-1", "m-2"])
    return t


def flutter_19(fixed):
    # Logout never depersonalizes: the next user sees the previous user's data and pushes.
    t = Trace()
    t.register("reg-f19")
    t.event("login", "reg-f19", "ana")
    t.personalize("reg-f19", "ana")
    t.event("logout", "reg-f19")
    if fixed:
        t.depersonalize("reg-f19")
    t.event("login", "reg-f19", "ben")
    t.personalize("reg-f19", "ben", force=not fixed)
    return t


def failed_depersonalize(fixed):
    # The depersonalize at logout meets a 503 and is never sent again: the previous user keeps the device.
    t = Trace()
    t.register("reg-dr")
    t.event("login", "reg-dr", "ana")
    t.personalize("reg-dr", "ana")
    t.event("logout", "reg-dr")
    t.depersonalize("reg-dr", status=503)
    if fixed:
        t.depersonalize("reg-dr")
    return t


CASES = {
    "android-13-personalize-before-registration": android_13,
    "ios-12-personalize-failed-silently": ios_12,
    "ios-15-no-registration": ios_15,
    "react-native-66-registration-on-update": rn_66,
    "android-38-sync-after-logout": android_38,
    "flutter-19-no-depersonalize": flutter_19,
    "failed-depersonalize-not-retried": failed_depersonalize,
}

if __name__ == "__main__":
    for name, make in CASES.items():
        os.makedirs(name, exist_ok=True)
        make(False).write(os.path.join(name, "broken.jsonl"))
        make(True).write(os.path.join(name, "fixed.jsonl"))
