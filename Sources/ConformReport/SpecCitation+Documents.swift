// Generated from docs/flow.md, docs/protocol.md and docs/decisions.md by DocsReferenceTests; do not edit by hand.
// Rewrite it with: CONFORM_RECORD_GOLDENS=1 swift test --skip-build --filter DocsReferenceTests

extension SpecCitation {
    /// Each section of the shipped documents: `ID | title` on one line, its summary on the next.
    static let documentedText = #"""
        1-registration | register, then wait for registrationUpdated
        A new installation of the app registers with the mobile API (M1) and receives its pushRegId; the SDK announces this with the `registrationUpdated` event, and the app makes no user call (personalize, user data, sessions, events, message sync) before it.

        2-login | on login, personalize the device
        When a user logs in, the device is personalized to that user's externalUserId (M4 from the app, or B3 from the backend): with `forceDepersonalize=false` when the device had no user before, and with `forceDepersonalize=true` when another user was personalized on it, so the device leaves that person.

        3-logout | on explicit logout, depersonalize
        When the user logs out, the device is depersonalized (M6 from the app, or B4 from the backend): the user's id and personal data leave the device, which moves to a fresh anonymous person, so pushes to that user stop reaching it.

        4-sessions | keep the device personalized while the session lives
        An app with expiring sessions keeps the device personalized while the user's session is valid, so the user can still be reached; when the session expires and someone else may use the app, it depersonalizes as at logout; and when a user with a live session updates to a first app version that contains the SDK, the new registration is personalized to that user with `forceDepersonalize=true` as soon as `registrationUpdated` comes.

        5-multi-device | one person, several devices
        Every device personalized with the same user id joins the same person, and a push sent to the person's id reaches all of that person's devices.

        6-primary | primary devices and primary-only pushes
        A device can be marked primary (on personalize with `setDeviceAsPrimary=true`, by patching an installation, or from the backend), and a push with `targetOnlyPrimaryDevices=true` then reaches only the person's primary device.

        7-backend-only | restricted and JWT application profiles
        When the application profile restricts updates of personal data from the app (or access to it), or asks for JWT authorization, the same flow runs with personalize, depersonalize and user reads done from the customer backend (B3, B4, B5), or with every user-data call from the app carrying a JWT the backend minted for the user.

        8-hygiene | what every step shares
        Not a step of the guide: the protocol rules every step depends on, certified once. Which credential opens which API, the error envelopes and their headers, malformed or invalid payloads, the Android and iOS dialects of the same calls, and delivery and seen reports.

        M1 | register an installation
        `POST /mobile/1/appinstance` registers the app installation and answers 200 with the installation, which must hold the new `pushRegId`; the SDK then raises `registrationUpdated` (flow step 1).

        M2 | update an installation
        `PATCH /mobile/1/appinstance/{id}` changes fields of an installation (system data, push token, `regEnabled`, `isPrimary`, custom attributes) and answers a 2xx whose body the SDK ignores; `{id}` may be another installation of the caller's person.

        M3 | read an installation
        `GET /mobile/1/appinstance/{id}` answers 200 with the installation as JSON, including `pushRegId`.

        M4 | personalize from the device
        `POST /mobile/1/appinstance/{id}/personalize` ties the device to the person owning the given identity and answers 200 with the user as JSON; its query flags say whether to force a switch away from another user, keep the person a lead, and make the device primary.

        M5 | repersonalize (Android)
        `POST /mobile/1/appinstance/{id}/repersonalize` repeats a personalize whose registration the server had lost, with the same body as M4 and no query; Android sends it during a sync, and the answer is a 2xx the SDK ignores.

        M6 | depersonalize from the device
        `POST /mobile/1/appinstance/{id}/depersonalize` detaches the device from its person and gives it a fresh anonymous one (D5); it has no body and the answer is a 2xx the SDK ignores.

        M7 | read the user
        `GET /mobile/1/appinstance/{id}/user` answers 200 with the user of the device's person as JSON, plus `instances`: every installation of that person with its `pushRegId` and `isPrimary`.

        M8 | update the user
        `PATCH /mobile/1/appinstance/{id}/user` changes the user's data with a delta (only changed members; an explicit `null` deletes) and answers a 2xx the SDK ignores.

        M9 | report sessions
        `POST /mobile/1/appinstance/{id}/user/events/session` reports the device's session starts and finished sessions with its system data, and answers a 2xx; it is the only session endpoint (there is no heartbeat).

        M10 | custom events
        `POST /mobile/1/appinstance/{id}/user/events/custom` sends custom events (`{"events": [{definitionId, date, properties}]}`) and answers a 2xx; `validate=true` (iOS `1`) for an event sent at once, `false` (`0`) for batches.

        M11 | delete an expired registration (iOS)
        `DELETE /mobile/1/appinstance/{id}` removes a registration the iOS SDK no longer uses (after its push token changed and it registered anew), and answers a 2xx.

        M12 | the base URL
        `GET /mobile/1/baseurl` answers `{"baseUrl": "…"}`, the base URL the SDK should use for the mobile API from then on.

        M13 | the inbox (out of scope)
        `GET /mobile/1/user/{externalUserId}/inbox/{gcm or apns}/messages` reads a user's inbox; the kit does not certify the inbox, and no suite calls it.

        M14 | message sync
        `POST /mobile/5/messages` is how a device fetches the pushes sent to it and reports which it received; the answer is 200 with `{"payloads": […]}` in the platform's own push format, which is how the suites observe delivery (D12).

        M15 | delivery report (iOS notification extension)
        `POST /mobile/1/messages/deliveryreport` with `{"dlrIds": […]}` reports deliveries from the iOS notification service extension; the answer is ignored. Android reports deliveries only through M14 `drIDs`.

        M16 | seen reports
        `POST /mobile/2/messages/seen` with `{"messages": [{messageId, timestampDelta}]}` reports messages the user opened, `timestampDelta` being whole seconds since; the answer is a 2xx the SDKs ignore.

        B1 | read a push registration (backend)
        `GET /people/2/contactInformation/push/{pushRegId}` answers 200 with the registration as the People API shows it (PushApiInstance: `registrationId`, `applicationId`, `isPrimary`, `systemData`, `additionalData`).

        B2 | update a push registration (backend)
        `PATCH /people/2/contactInformation/push/{pushRegId}` changes `isPrimary`, `systemData.registrationEnabled` (the only writable system field) and `additionalData`, and answers 200 with the whole registration.

        B3 | personalize from the backend
        `POST /people/2/contactInformation/push/{pushRegId}/personalize` is the server-side twin of M4: it ties the registration to the person of `identity` and answers 200 with a summary of the person.

        B4 | depersonalize from the backend
        `POST /people/2/contactInformation/push/{pushRegId}/depersonalize` is the server-side twin of M6; no body, and the answer is 200 with no content.

        B5 | read a person (backend)
        `GET /people/2/persons?identifier=…&type=EXTERNAL_ID` (or `EMAIL`, `PHONE`) answers the person, whose `contactInformation.push[]` lists its registrations.

        B6 | send a push (v2, single)
        `POST /push/2/message/single` sends one push, `{"from": <application code>, "to": {…}, "text": …, "targetOnlyPrimaryDevices"?: true}`, and answers 200 with `bulks[]`, one per message (`to`, `status`, `messageCount`, `bulkId`).

        B7 | send pushes (v2, multi)
        `POST /push/2/message/multi` sends several pushes in one request, `{"messages": [B6-like]}`, and answers 200 with one bulk per message.

        B8 | send pushes (v3)
        `POST /push/3/messages` sends `{"messages": [{sender, destinations, content, options}]}`, where each destination has a type (`EXTERNAL_USER_ID`, `EMAIL`, `PHONE_NUMBER`, `REGISTRATION`, `MULTIPLE`) and may carry `targetOnlyPrimaryDevices`; it answers 200 with `bulkId` and `messages[]`, and refuses bad input with 400 in the `E400` violations envelope.

        D1 | status of mobile business and validation errors
        A business or validation refusal on the mobile API is a 4xx with a `messageId` in the `requestError.serviceException` envelope; the exact status (400, and 403 for `USER_DATA_RESTRICTED`) and the exact `messageId` are assumed.

        D2 | personalize to another user without force
        Personalizing a device that already belongs to one externalUserId with another externalUserId and `forceDepersonalize=false` is refused with `USER_MERGE_INTERRUPTED`, and the device stays with its first person; the whole behaviour is assumed.

        D3 | personalize again with the same identity
        Personalizing a device again with the identity it already has is accepted with 200 and changes nothing: the device stays with the same person. This is a MUST.

        D4 | personalize with forceDepersonalize=true
        With `forceDepersonalize=true` the device leaves its current person, which keeps its other devices, and joins the person that owns the identity (created if there is none). This is a MUST.

        D5 | depersonalize
        After depersonalize the device belongs to a fresh anonymous person, GET user shows no externalUserId, and pushes to the old externalUserId no longer reach it (all MUST); that a repeated depersonalize is accepted (a 2xx) is assumed.

        D6 | primary devices
        A person has at most one primary device: marking one clears the others, and `setDeviceAsPrimary=true` on personalize marks the device. Marking is a MUST; that the others are cleared is assumed.

        D7 | primary-only push when the person has no primary device
        A push with `targetOnlyPrimaryDevices=true` to a person who has no primary device is accepted and reaches no device; both the acceptance and the outcome are assumed.

        D8 | restricted application profiles
        There are two restricted profiles: `restricted` (updates restricted) refuses the app's personalize, repersonalize and PATCH user, and `restricted-access` also refuses the app's GET user; which calls are refused is a MUST, the refusal's status and code (403 `USER_DATA_RESTRICTED`) are assumed.

        D9 | the JWT application profile
        In the JWT profile, personalize, repersonalize, GET user and PATCH user need `Authorization: Bearer <JWT>`, an unexpired HS256 token signed with the profile's key whose `sub` is the externalUserId and whose `infobip-api-key` claim is the application code; anything else is refused, and the 401 `UNAUTHORIZED` answer is assumed.

        D10 | an unknown pushRegistrationId
        A pushRegistrationId the server never issued is refused: on the backend with 400 `{"errorCode":48013}` (a MUST, from the OpenAPI document), on the mobile API with a 4xx whose 400 `NO_REGISTRATION` is assumed.

        D11 | wrong or missing credentials
        A missing or wrong credential is refused with 401 in the standard envelope, an application code never opens a backend (People, Push) endpoint and an API key never a mobile one (all MUST); the `messageId` value (`UNAUTHORIZED`) is assumed.

        D12 | what a device can observe of the pushes sent to it
        A device observes the pushes targeted to it through message sync (M14): the mobile API returns the messages sent to that installation; that a push reaches the devices it targets is a MUST, and that a reported or listed message is not handed out again is assumed.

        D13 | booleans in the query string
        Query booleans may be `true`/`false` (Android) or `1`/`0` (iOS), and the order of query parameters never matters; this is a MUST.

        D14 | PATCH on Android
        A `POST` with `X-HTTP-Method-Override: PATCH` is the same request as a `PATCH`; this is a MUST.

        D15 | error bodies and their headers
        Every error response carries `Content-Length` and `Content-Type: application/json`; this is a MUST.

        D16 | a device acting on another person's installation
        A device of one person that patches or depersonalizes an installation of another person is refused with a 4xx and the installation is left unchanged; the whole behaviour is assumed.

        D17 | a push to a person with no device left
        A push (B6, B7, B8) to an externalUserId whose person has no device, for instance after depersonalize, is accepted with a 2xx (assumed) and reaches no device (a MUST, as in D5).

        D18 | effects a real backend applies later
        Delivery of pushes to message sync and backend (People API) reads after a mobile write are eventually consistent: suites observe them with `eventually` within a window (a variable, 10 s by default), a check that something does not happen is judged only after a later positive control has been seen, and a device's reads of its own installation and user are immediate; this is a MUST for the suites.

        D19 | optional members with no value
        Where a member is optional, absent, `null` and empty (`[]`, `{}`, `""`) are the same, and "no externalUserId" matches all three; this is a MUST for the suites.

        D20 | a client's recovery when the server could not take a call
        A call that got no answer, or 408, 429 or a 5xx, was not taken: the app owes it again. A failed depersonalize is sent again and answered 2xx before the device is personalized or its user read or updated, and before the app stops; a failed personalize is sent again or reported to the user; a pushRegId the server answered `NO_REGISTRATION` for is replaced by a new registration before user calls go on; an app update keeps the registration; message sync keeps listing the messages the device holds across a depersonalize. These are MUSTs for `conform check`.

        """#
}
