/*
 * An attribute kept under its former name after its parameter moved into an algorithm object
 * (the switch's DtAlpha -> its BufferAdmission's Alpha, EcnKmin -> its EcnMarker's Kmin, ...), so
 * that scripts, attribute strings and tests written against the old name keep working.
 *
 * Reading gives the object's current value. Writing a value other than the former attribute's
 * default sets the object's attribute (a fatal error, naming both, if the object has none); the
 * default itself changes nothing. ns-3 writes every attribute at construction (the default
 * when none is given), so without that rule the former attribute's default would overwrite
 * parameters given in the object's own factory string ("ns3::MetaRoceRedEcnMarker[Kmin=5000]").
 * The owner must register the attribute that creates the object before the forwarded ones.
 */
#ifndef METAROCE_FORWARDED_ATTRIBUTE_H
#define METAROCE_FORWARDED_ATTRIBUTE_H

#include "ns3/attribute.h"
#include "ns3/object.h"

#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup metaroce
 * \brief Accessor of a former attribute that forwards to an attribute of an owned object.
 */
class MetaRoceForwardedAttribute : public AttributeAccessor
{
  public:
    /// The object the attribute lives in now, given the owner (null while there is none).
    using Target = std::function<Ptr<Object>(const ObjectBase* owner)>;

    /**
     * \param target finds the object in the owner
     * \param formerName the owner's attribute, for messages ("MetaRoceSwitch::EcnKmin")
     * \param name the object's attribute ("Kmin")
     * \param initial the former attribute's default: writing it changes nothing
     * \param checker the former attribute's checker (serialises values for the comparison)
     */
    MetaRoceForwardedAttribute(Target target,
                               std::string formerName,
                               std::string name,
                               Ptr<const AttributeValue> initial,
                               Ptr<const AttributeChecker> checker);

    bool Set(ObjectBase* object, const AttributeValue& value) const override;
    bool Get(const ObjectBase* object, AttributeValue& value) const override;
    bool HasGetter() const override;
    bool HasSetter() const override;

  private:
    Target m_target;
    std::string m_formerName;
    std::string m_name;
    std::string m_initial; ///< serialised
    Ptr<const AttributeChecker> m_checker;
};

/**
 * Adds to `tid` the former attribute `formerName` forwarding to attribute `name` of the object
 * `target` finds, with default `initial` and `checker`; returns `tid`.
 */
TypeId AddForwardedAttribute(TypeId tid,
                             const std::string& formerName,
                             const std::string& help,
                             const std::string& name,
                             const AttributeValue& initial,
                             Ptr<const AttributeChecker> checker,
                             MetaRoceForwardedAttribute::Target target);

} // namespace ns3

#endif // METAROCE_FORWARDED_ATTRIBUTE_H
