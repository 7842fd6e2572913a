import ConformCore

/// Which device a Mobile Messaging exchange belongs to.
extension MobileMessaging {
    /// A device is its installation, the `pushRegId`: named by the `pushregistrationid` header, by the answer of the
    /// registration that created it, or by the path (`/mobile/1/appinstance/{id}`, the backend's
    /// `/people/2/contactInformation/push/{id}`); backend calls that name no installation are the `backend` flow.
    public static let flows = ProtocolProfile.FlowKeys(
        pathTemplates: ["/mobile/*/appinstance/{id}", "/people/*/contactInformation/push/{id}"],
        requestHeader: "pushregistrationid", answerMember: "pushRegId", sharedPathPrefixes: ["/people/", "/push/"],
        sharedFlow: "backend")
}
